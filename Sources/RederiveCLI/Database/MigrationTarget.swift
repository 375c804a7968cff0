import Rederive

/// The database `rederive migrate` applies an app's schema migrations to: any store that applies the
/// engine's migrations itself (`SchemaMigrationApplier`), rederive's SQLite and PostgreSQL stores
/// among them.
///
/// The migrations are registered once, in the engine's model, and each store applies them itself: a
/// store that cannot run a pending step (SQLite's custom steps on PostgreSQL) stops the command
/// before anything is applied.
struct MigrationTarget {
    /// What applies migrations to the opened store.
    let applier: any SchemaMigrationApplier

    /// Opens an existing database: read-only when `reading` (to list migrations), as it is for a dry
    /// run, which rolls back what it applies, and otherwise with rederive's bookkeeping prepared, all
    /// at once, but no pipeline: migrations may create or rename what pipelines read.
    /// Opened through the ``StoreFactory`` like every store.
    static func open(_ database: DatabaseOptions, reading: Bool, dryRun: Bool) async throws -> MigrationTarget {
        let mode: StoreRequest.Mode = reading ? .reading(allowingUnprepared: true) : dryRun ? .previewing : .preparing(creating: false)
        let store = try await database.open(mode, pipelines: [])
        guard let applier = store.schemaMigrations else {
            throw RederiveError(
                .invalidArgument, "rederive migrate works on databases whose store applies schema migrations, and \(database.databaseName)'s does not"
            )
        }
        return MigrationTarget(applier: applier)
    }

    /// Every registered migration, applied or pending, in order.
    func states(_ migrator: SchemaMigrator) async throws -> [MigrationState] {
        try await applier.migrationStates(migrator)
    }

    /// Applies the pending migrations up to `target`, or rehearses them with `dryRun`.
    func migrate(_ migrator: SchemaMigrator, to target: String?, dryRun: Bool) async throws -> MigrationOutcome {
        try await applier.migrate(migrator, to: target, dryRun: dryRun)
    }
}
