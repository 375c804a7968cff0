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
    static func open(_ database: DatabaseOptions, reading: Bool, dryRun: Bool) async throws -> MigrationTarget {
        guard database.isPostgres else {
            let path = database.databasePath
            let timeout = database.busyTimeout
            return .sqlite(
                reading ? try SQLiteStore.openForReading(path: path, busyTimeout: timeout, allowingUnprepared: true)
                    : dryRun ? try SQLiteStore.openForPreview(path: path, busyTimeout: timeout)
                    : try SQLiteStore.openForWriting(path: path, pipelines: [], busyTimeout: timeout)
            )
        }
        #if PostgreSQL
        let store = try await PostgresStore(
            location: database.serverLocation(),
            creatingBookkeeping: !reading
        )
        return .postgres(store, name: database.databaseName)
        #else
        throw database.postgresUnavailable
        #endif
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
