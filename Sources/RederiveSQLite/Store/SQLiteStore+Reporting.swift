import Rederive

/// Status, failures, invalidation and runs (SQLiteStore+Staleness, +Failures, SQLiteStore) for reports
/// and administration.
extension SQLiteStore: StoreReporting {}
