#if PostgreSQL
import Foundation
import PostgresNIO
import Rederive

/// Applying an app's schema migrations, each in its own transaction: PostgreSQL's DDL is
/// transactional, so a migration that fails leaves nothing behind.
extension PostgresStore {
    /// The state of each migration of `ids`, in that order.
    public func migrationStates(of ids: [String]) async throws -> [MigrationState] {
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
        return ids.map { byID[$0] ?? MigrationState(id: $0, appliedAt: nil, duration: nil, rederiveVersion: nil) }
    }

    /// Applies the migrations not yet applied, in order, each in its own transaction.
    ///
    /// A migration that fails rolls back completely and stops the rest: the error names it, and the
    /// database is as the previous migration left it. With `dryRun`, the pending migrations are applied
    /// in one transaction that is rolled back, so what would fail fails, and nothing is written.
    /// Hosts migrating at once take turns, and a migration another host applied meanwhile is skipped.
    @discardableResult
    public func migrate(_ migrations: [PostgresMigration], dryRun: Bool = false) async throws -> MigrationOutcome {
        let applied = Set(try await migrationStates(of: migrations.map(\.id)).filter(\.isApplied).map(\.id))
        let pending = migrations.filter { !applied.contains($0.id) }
        guard !pending.isEmpty else { return MigrationOutcome(applied: [], dryRun: dryRun) }
        let logger = self.logger
        let location = self.location
        if dryRun {
            return try await withConnection("migrate") { connection in
                try await connection.query("BEGIN", logger: logger)
                var done: [String] = []
                for migration in pending {
                    do {
                        try await Self.apply(migration, connection, logger)
                    } catch {
                        _ = try? await connection.query("ROLLBACK", logger: logger)
                        throw RederiveError(.database, "schema migration \"\(migration.id)\" would fail in \(location)", underlying: PostgresProblem(error))
                    }
                    done.append(migration.id)
                }
                try await connection.query("ROLLBACK", logger: logger)
                return MigrationOutcome(applied: done, dryRun: true)
            }
        }
        var done: [String] = []
        for migration in pending {
            let applied = try await withConnection("migrate") { connection in
                try await connection.query("BEGIN", logger: logger)
                do {
                    let clock = ContinuousClock()
                    let start = clock.now
                    try await connection.query("SELECT pg_advisory_xact_lock(hashtext('rederive migrate'))", logger: logger)
                    var check = SQLStatement()
                    check.sql = "SELECT count(*) FROM rederive_schema_migrations WHERE id = \(check.bind(migration.id))"
                    guard try await connection.count(check, logger: logger) == 0 else {
                        try await connection.query("ROLLBACK", logger: logger)
                        return false
                    }
                    try await Self.apply(migration, connection, logger)
                    var record = SQLStatement()
                    record.sql = """
                        INSERT INTO rederive_schema_migrations (id, applied_at, duration_ms, rederive_version)
                        VALUES (\(record.bind(migration.id)), now(), \(record.bind((clock.now - start).secondsValue * 1000)),
                            \(record.bind(RederiveVersion.current)))
                        """
                    try await connection.run(record, logger: logger)
                    try await connection.query("COMMIT", logger: logger)
                    return true
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    throw RederiveError(
                        .database, "schema migration \"\(migration.id)\" failed and was rolled back in \(location)", underlying: PostgresProblem(error)
                    )
                }
            }
            if applied { done.append(migration.id) }
        }
        return MigrationOutcome(applied: done, dryRun: false)
    }

    /// Runs the migration's statements and makes stale what it asks, inside the caller's transaction.
    private static func apply(_ migration: PostgresMigration, _ connection: PostgresConnection, _ logger: Logger) async throws {
        for statement in migration.statements {
            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
        for processor in migration.invalidates {
            var stamps = SQLStatement()
            let name = stamps.bind(processor, as: "text")
            stamps.sql = """
                UPDATE rederive_stamps SET processors = processors || jsonb_build_object(\(name), (processors -> \(name)) || '{"current": false}')
                WHERE processors @> jsonb_build_object(\(name), '{"current": true}'::jsonb)
                """
            try await connection.run(stamps, logger: logger)
            var failures = SQLStatement()
            failures.sql = "UPDATE rederive_failures SET current = false WHERE processor = \(failures.bind(processor)) AND current"
            try await connection.run(failures, logger: logger)
        }
    }
}
#endif
