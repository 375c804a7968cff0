#if PostgreSQL
import Rederive

/// Preparation, claims, commits and runs (PostgresStore+Staleness, +Leases, +Claims, +Commit, +Runs)
/// for the runner.
extension PostgresStore: RecordStore {}
#endif
