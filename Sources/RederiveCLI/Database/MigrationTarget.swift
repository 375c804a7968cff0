import Foundation
import Rederive
import RederiveSQLite
#if PostgreSQL
import RederivePostgres
#endif

/// The database `rederive migrate` applies an app's schema migrations to, SQLite or PostgreSQL.
///
/// The migrations are registered once, for both: adding columns and indexes, renaming columns and
/// plain SQL run on either. A custom step is given SQLite's `Database`, so it cannot run on
/// PostgreSQL; a pending one stops the command before anything is applied.
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

    func states(_ migrator: SchemaMigrator) async throws -> [MigrationState] {
        switch self {
        case .sqlite(let store):
            return try await store.migrationStates(migrator)
        #if PostgreSQL
        case .postgres(let store, _):
            return try await store.migrationStates(of: migrator.migrations.map(\.id))
        #endif
        }
    }

    func migrate(_ migrator: SchemaMigrator, to target: String?, dryRun: Bool) async throws -> MigrationOutcome {
        switch self {
        case .sqlite(let store):
            return try await store.migrate(migrator, to: target, dryRun: dryRun)
        #if PostgreSQL
        case .postgres(let store, let name):
            let wanted = try migrator.migrations(through: target)
            let states = try await store.migrationStates(of: wanted.map(\.id))
            let pending = zip(wanted, states).filter { !$1.isApplied }.map(\.0)
            return try await store.migrate(try pending.map { try Self.postgres($0, database: name) }, dryRun: dryRun)
        #endif
        }
    }

    #if PostgreSQL
    /// A migration as PostgreSQL applies it; a custom step cannot be.
    private static func postgres(_ migration: SchemaMigration, database: String) throws -> PostgresMigration {
        let change: PostgresMigration.Change = switch migration.step {
        case .addColumn(let table, let column): .addColumn(table: table, column: column)
        case .addIndex(let name, let table, let columns, let unique): .addIndex(name: name, table: table, columns: columns, unique: unique)
        case .renameColumn(let table, let from, let to): .renameColumn(table: table, from: from, to: to)
        case .sql(let statements): .sql(statements)
        case .custom:
            throw RederiveError(
                .invalidArgument,
                "schema migration \"\(migration.id)\" is a custom step, written against SQLite, and cannot run on \(database); nothing was applied (write it as .sql to run it on PostgreSQL)"
            )
        }
        return PostgresMigration(id: migration.id, change: change, invalidates: migration.invalidates)
    }
    #endif
}
