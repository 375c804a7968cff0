#if PostgreSQL
import Foundation
import PostgresNIO
import Rederive
import RederiveSQL

/// Applying an app's schema migrations: PostgreSQL's DDL is transactional, so a migration that fails
/// leaves nothing behind.
///
/// One applier does it all, each transaction under the advisory lock `pg_advisory_xact_lock`: hosts
/// migrating at once take turns, and each, holding the lock, skips what another applied before it, so
/// every migration is applied once.
extension PostgresStore: SchemaMigrationApplier {
    /// Every registered migration, applied or pending, in order.
    public func migrationStates(_ migrator: SchemaMigrator) async throws -> [MigrationState] {
        let logger = self.logger
        let applied = try await withConnection("read") { connection in
            try await connection.query("""
                SELECT id, applied_at, duration_ms, rederive_version FROM rederive_schema_migrations
                """, logger: logger).collect { row in
                let (id, appliedAt, milliseconds, version) = try row.decode((String, Date, Double, String).self)
                return MigrationState(id: id, appliedAt: appliedAt, duration: .milliseconds(milliseconds), rederiveVersion: version)
            }
        }
        let byID = Dictionary(applied.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return migrator.migrations.map { byID[$0.id] ?? MigrationState(id: $0.id, appliedAt: nil, duration: nil, rederiveVersion: nil) }
    }

    /// Applies the pending migrations up to `target` (all when nil), each in its own transaction.
    ///
    /// A migration that fails rolls back completely and stops the rest: the error names it, and the
    /// database is as the previous migration left it. With `dryRun`, the pending migrations are applied
    /// in one transaction that is rolled back, so what would fail fails, and nothing is written. A
    /// pending step PostgreSQL cannot run (SQLite's custom step) stops everything before anything is
    /// applied. Hosts migrating at once take turns, and a migration another host applied meanwhile is
    /// skipped.
    @discardableResult
    public func migrate(_ migrator: SchemaMigrator, to target: String? = nil, dryRun: Bool = false) async throws -> MigrationOutcome {
        let applied = Set(try await migrationStates(migrator).filter(\.isApplied).map(\.id))
        let pending = try migrator.pending(through: target, applied: applied, on: location.description) { _ in false }
        // A dry run is one transaction, rolled back; a real one, a transaction per migration.
        let transactions = dryRun ? [pending] : pending.map { [$0] }
        var done: [String] = []
        for migrations in transactions where !migrations.isEmpty {
            done += try await apply(migrations, dryRun: dryRun)
        }
        // A migration may change what pipelines read: the next preparation looks again.
        if !done.isEmpty && !dryRun { forgetPreparedPipelines() }
        return MigrationOutcome(applied: done, dryRun: dryRun)
    }

    /// Applies `migrations` in one transaction under the migration lock, skipping those applied
    /// meanwhile, and records them; or, with `dryRun`, rolls them back. Returns those applied.
    private func apply(_ migrations: [SchemaMigration], dryRun: Bool) async throws -> [String] {
        let logger = self.logger
        let location = self.location
        return try await withConnection("migrate") { connection in
            try await connection.query("BEGIN", logger: logger)
            var done: [String] = []
            var current = migrations[0]
            do {
                try await connection.query("SELECT pg_advisory_xact_lock(hashtext('rederive migrate'))", logger: logger)
                for migration in migrations {
                    current = migration
                    let clock = ContinuousClock()
                    let start = clock.now
                    var check = SQLStatement()
                    check.sql = "SELECT count(*) FROM rederive_schema_migrations WHERE id = \(check.bind(migration.id))"
                    guard try await connection.count(check, logger: logger) == 0 else { continue }
                    try await Self.apply(migration, connection, logger)
                    if !dryRun {
                        var record = SQLStatement()
                        record.sql = """
                            INSERT INTO rederive_schema_migrations (id, applied_at, duration_ms, rederive_version)
                            VALUES (\(record.bind(migration.id)), now(), \(record.bind((clock.now - start).secondsValue * 1000)),
                                \(record.bind(RederiveVersion.current)))
                            """
                        try await connection.run(record, logger: logger)
                    }
                    done.append(migration.id)
                }
                try await connection.query(dryRun ? "ROLLBACK" : "COMMIT", logger: logger)
                return done
            } catch {
                await Self.rollBack(connection, after: error, logger: logger)
                throw RederiveError(
                    .database,
                    dryRun ? "schema migration \"\(current.id)\" would fail in \(location)"
                        : "schema migration \"\(current.id)\" failed and was rolled back in \(location)",
                    underlying: PostgresProblem(error)
                )
            }
        }
    }

    /// Makes the migration's change and makes stale what it asks, inside the caller's transaction.
    private static func apply(_ migration: SchemaMigration, _ connection: PostgresConnection, _ logger: Logger) async throws {
        switch migration.step {
        case .backfill(let body):
            try await PostgresMigrationDatabase.run(body, on: connection, logger: logger)
        case .storeSpecific(let step):
            // `pending(through:applied:on:runs:)` let none through.
            throw RederiveError(.invalidArgument, "schema migration \"\(migration.id)\" is \(step.summary), and cannot run on PostgreSQL")
        default:
            for statement in migration.step.statements(identifier: PostgresSQL.identifier, definition: PostgresSQL.definition(of:)) ?? [] {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
        }
        for reference in migration.invalidates {
            for table in ["rederive_stamps", "rederive_failures"] {
                var statement = SQLStatement()
                statement.sql = """
                    UPDATE \(table) SET current = false
                    WHERE pipeline = \(statement.bind(reference.pipeline)) AND processor = \(statement.bind(reference.processor)) AND current
                    """
                try await connection.run(statement, logger: logger)
            }
        }
    }
}
#endif
