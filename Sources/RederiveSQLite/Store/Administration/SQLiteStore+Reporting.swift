import Rederive

/// Status, failures, invalidation and runs (SQLiteStore+Staleness, +Failures, SQLiteStore) for reports
/// and administration.
extension SQLiteStore: StoreReporting {
    /// None: one process derives a SQLite database at a time, under the database's single lease, and
    /// no other process can join it (`run --workers-only` is PostgreSQL's), so `status` lists no workers.
    public func liveWorkers() async throws -> [WorkerStatus] { [] }
}
