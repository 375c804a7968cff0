#if PostgreSQL
import Rederive

/// Preparation, claims, commits and runs (PostgresStore+Staleness, +Leases, +Claims, +Commit, +Runs)
/// for the runner, and what the store offers beyond a run.
extension PostgresStore: RecordStore {
    /// Pauses and cancels are kept in the database, for every host's processes.
    public var runControl: (any RunControlling)? { self }

    /// Projections are kept in the database.
    public var projectionStore: (any ProjectionStoring)? { self }

    /// Schema migrations are applied in one transaction each.
    public var schemaMigrations: (any SchemaMigrationApplier)? { self }

    /// Processes on any host that derive the same database share its runs.
    public var sharedRuns: (any SharedRunReporting)? { self }

    /// Changes are signalled by the server (`LISTEN`).
    public var changeSignaling: (any ChangeSignaling)? { self }
}
#endif
