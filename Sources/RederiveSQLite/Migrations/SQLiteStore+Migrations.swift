import Foundation
import GRDB
import Rederive
import RederiveSQL
import Synchronization

/// Applying an app's schema migrations through GRDB's `DatabaseMigrator`.
///
/// The pending migrations are registered with GRDB's migrator after rederive's bookkeeping ones, each
/// under `rederive.schema:<id>`, so that none can take the identifier of a migration the app gives GRDB
/// itself. GRDB then applies each in its own immediate transaction, with foreign keys checked at its end
/// as GRDB checks them, and records it in `grdb_migrations`. In the same transaction rederive records it
/// in `rederive_schema_migrations`, with its time, duration and rederive's version: that table says
/// which migrations are applied, as it did before GRDB applied them, so a database migrated then still
/// has them applied.
extension SQLiteStore: SchemaMigrationApplier {
    /// What GRDB's `grdb_migrations` holds before an app migration's identifier.
    static let migrationPrefix = "rederive.schema:"

    /// Every registered migration, applied or pending, in order.
    public func migrationStates(_ migrator: SchemaMigrator) async throws -> [MigrationState] {
        let applied = try await read { db in
            // A database rederive never prepared has applied none.
            guard try db.tableExists("rederive_schema_migrations") else { return [String: MigrationState]() }
            return try Row.fetchAll(db, sql: "SELECT id, applied_at, duration_ms, rederive_version FROM rederive_schema_migrations")
                .reduce(into: [String: MigrationState]()) { states, row in
                    let appliedAt: String = row["applied_at"]
                    let milliseconds: Double = row["duration_ms"]
                    states[row["id"]] = MigrationState(
                        id: row["id"],
                        appliedAt: Timestamp.date(appliedAt),
                        duration: .milliseconds(milliseconds),
                        rederiveVersion: row["rederive_version"]
                    )
                }
        }
        return migrator.migrations.map { migration in
            applied[migration.id] ?? MigrationState(id: migration.id, appliedAt: nil, duration: nil, rederiveVersion: nil)
        }
    }

    /// Applies the pending migrations up to `target` (all when nil), each in its own transaction, through
    /// GRDB's `DatabaseMigrator`.
    ///
    /// A migration that fails rolls back completely and stops the rest: the error names it, and the
    /// database is as the previous migration left it. With `dryRun`, the pending migrations are applied
    /// in one transaction that is rolled back, so what would fail fails, and nothing is written. A
    /// migration another process applied meanwhile is not applied again.
    @discardableResult
    public func migrate(_ migrator: SchemaMigrator, to target: String? = nil, dryRun: Bool = false) async throws -> MigrationOutcome {
        var done: [String] = []
        while true {
            let applied = Set(try await migrationStates(migrator).filter(\.isApplied).map(\.id))
            let pending = try migrator.pending(through: target, applied: applied, on: path) { $0 is SQLiteCustomStep }
            if pending.isEmpty {
                return MigrationOutcome(applied: done, dryRun: dryRun)
            }
            if dryRun {
                return MigrationOutcome(applied: try await rehearse(pending), dryRun: true)
            }
            let attempt = try await apply(pending)
            done += attempt.applied
            if attempt.finished {
                return MigrationOutcome(applied: done, dryRun: false)
            }
            // Another process applied one of them since the states were read: read them again.
        }
    }

    /// Applies `pending` with GRDB's migrator. Not finished when a migration turned out to be applied
    /// by another process, which only its record, read under the transaction's write lock, can say.
    private func apply(_ pending: [SchemaMigration]) async throws -> (applied: [String], finished: Bool) {
        let committed = CommittedMigrations()
        var grdb = BookkeepingSchema.migrator
        for migration in pending {
            grdb.registerMigration(Self.migrationPrefix + migration.id) { db in
                let recorded = try Bool.fetchOne(
                    db, sql: "SELECT EXISTS (SELECT 1 FROM rederive_schema_migrations WHERE id = ?)", arguments: [migration.id]
                ) ?? false
                if recorded { throw AppliedElsewhere() }
                let clock = ContinuousClock()
                let start = clock.now
                try Self.apply(migration, db)
                try db.execute(
                    sql: """
                        INSERT INTO rederive_schema_migrations (id, applied_at, duration_ms, rederive_version)
                        VALUES (?, ?, ?, ?)
                        """,
                    arguments: [migration.id, Timestamp.text(Date()), (clock.now - start).secondsValue * 1000, RederiveVersion.current]
                )
                db.afterNextTransaction { _ in committed.ids.withLock { $0.append(migration.id) } }
            }
        }
        let database = self.database
        let migrations = grdb
        do {
            try await offload { try migrations.migrate(database) }
            return (committed.ids.withLock { $0 }, true)
        } catch is AppliedElsewhere {
            return (committed.ids.withLock { $0 }, false)
        } catch {
            let applied = committed.ids.withLock { $0 }
            let failed = pending.first { !applied.contains($0.id) }?.id ?? "?"
            throw RederiveError(.database, "schema migration \"\(failed)\" failed and was rolled back in \(path)", underlying: SQLiteProblem.told(error))
        }
    }

    /// Applies `pending` in one transaction that is rolled back: each sees what the ones before it would
    /// have done, with foreign keys off during the changes and checked after each, as GRDB's migrator
    /// does, and rederive's tables as a real migration finds them (an invalidation writes to them).
    private func rehearse(_ pending: [SchemaMigration]) async throws -> [String] {
        let database = self.database
        let path = self.path
        return try await offload {
            try database.writeWithoutTransaction { db in
                let foreignKeys = try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") ?? false
                if foreignKeys { try db.execute(sql: "PRAGMA foreign_keys = OFF") }
                defer { if foreignKeys { try? db.execute(sql: "PRAGMA foreign_keys = ON") } }
                var done: [String] = []
                try db.inTransaction {
                    if try BookkeepingSchema.state(db) != .current {
                        try BookkeepingSchema.apply(db)
                    }
                    for migration in pending {
                        do {
                            try Self.apply(migration, db)
                            if foreignKeys { try db.checkForeignKeys() }
                        } catch {
                            throw RederiveError(.database, "schema migration \"\(migration.id)\" would fail in \(path)", underlying: SQLiteProblem.told(error))
                        }
                        done.append(migration.id)
                    }
                    return .rollback
                }
                return done
            }
        }
    }

    /// Applies the step and invalidates what it asks, inside the caller's transaction.
    static func apply(_ migration: SchemaMigration, _ db: Database) throws {
        switch migration.step {
        case .backfill(let body):
            try body(SQLiteMigrationDatabase(db: db))
        case .storeSpecific(let step):
            // `pending(through:applied:on:runs:)` let through only the steps SQLite runs.
            guard let custom = step as? SQLiteCustomStep else {
                throw RederiveError(.invalidArgument, "schema migration \"\(migration.id)\" is \(step.summary), and cannot run on SQLite")
            }
            try custom.body(db)
        default:
            for statement in migration.step.statements(identifier: SQL.identifier, definition: SQL.definition(of:)) ?? [] {
                try db.execute(sql: statement)
            }
        }
        for reference in migration.invalidates {
            let arguments: StatementArguments = [reference.pipeline, reference.processor]
            try db.execute(sql: "UPDATE rederive_stamps SET current = 0 WHERE pipeline = ? AND processor = ? AND current = 1", arguments: arguments)
            try db.execute(sql: "UPDATE rederive_failures SET current = 0 WHERE pipeline = ? AND processor = ? AND current = 1", arguments: arguments)
        }
    }
}

/// Thrown inside a migration's transaction when another process recorded the migration first.
private struct AppliedElsewhere: Error {}

/// The migrations whose transactions committed, in order, as GRDB's migrator applies them.
private final class CommittedMigrations: Sendable {
    let ids = Mutex<[String]>([])
}
