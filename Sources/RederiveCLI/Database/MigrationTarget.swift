import Foundation
import Rederive
import RederiveSQLite
#if PostgreSQL
import RederivePostgres
#endif

/// The database `rederive migrate` applies an app's schema migrations to, SQLite or PostgreSQL.
///
/// The migrations are registered once, in the engine's model, and each store applies them itself: a
/// store that cannot run a pending step (PostgreSQL and SQLite's custom steps) stops the command
/// before anything is applied.
enum MigrationTarget {
    case sqlite(SQLiteStore)
    #if PostgreSQL
    case postgres(PostgresStore, name: String)
    #endif

    /// Opens an existing database: read-only when `reading` (to list migrations), as it is for a dry
    /// run, which rolls back what it applies, and otherwise with rederive's bookkeeping prepared, all
    /// at once, but no pipeline: migrations may create or rename what pipelines read.
    /// Opened through the ``StoreFactory`` like every store; migrations are applied by the store's
    /// own migration code, so only rederive's SQLite and PostgreSQL stores can be migrated.
    static func open(_ database: DatabaseOptions, reading: Bool, dryRun: Bool) async throws -> MigrationTarget {
        let mode: StoreRequest.Mode = reading ? .reading(allowingUnprepared: true) : dryRun ? .previewing : .preparing(creating: false)
        let store = try await database.open(mode, pipelines: [])
        if let store = store as? SQLiteStore { return .sqlite(store) }
        #if PostgreSQL
        if let store = store as? PostgresStore { return .postgres(store, name: database.databaseName) }
        #endif
        throw RederiveError(
            .invalidArgument, "rederive migrate works on SQLite and PostgreSQL databases only, not on \(database.databaseName)"
        )
    }

    /// What applies migrations to the opened store.
    var applier: any SchemaMigrationApplier {
        switch self {
        case .sqlite(let store): store
        #if PostgreSQL
        case .postgres(let store, _): store
        #endif
        }
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
