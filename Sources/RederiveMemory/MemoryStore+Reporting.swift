import Rederive

/// Status, failures, invalidation, runs and live workers (MemoryStore+Staleness, +Failures, +Runs,
/// +Leases) for reports and administration.
extension MemoryStore: StoreReporting {}
