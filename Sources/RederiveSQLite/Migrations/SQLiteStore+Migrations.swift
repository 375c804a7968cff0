import Foundation
import GRDB
import Rederive

/// Applying an app's schema migrations.
extension SQLiteStore {
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

    /// Applies the pending migrations up to `target` (all when nil), each in its own transaction.
    ///
    /// A migration that fails rolls back completely and stops the rest: the error names it, and the
    /// database is as the previous migration left it. With `dryRun`, the pending migrations are applied
    /// in one transaction that is rolled back, so what would fail fails, and nothing is written.
    @discardableResult
    public func migrate(_ migrator: SchemaMigrator, to target: String? = nil, dryRun: Bool = false) async throws -> MigrationOutcome {
        let wanted = try migrator.migrations(through: target)
        let applied = Set(try await migrationStates(migrator).filter(\.isApplied).map(\.id))
        let pending = wanted.filter { !applied.contains($0.id) }
        guard !pending.isEmpty else { return MigrationOutcome(applied: [], dryRun: dryRun) }
        let database = self.database
        let path = self.path
        let done = try await offload { () throws -> [String] in
            if dryRun {
                // All pending migrations in one transaction that is rolled back, so that each sees what
                // the ones before it would have done.
                var done: [String] = []
                try database.writeWithoutTransaction { db in
                    try db.inTransaction {
                        // As a real migration would find them: with rederive's tables, which a
                        // migration's invalidation writes to; rolled back with the rest.
                        if try BookkeepingSchema.state(db) != .current {
                            try BookkeepingSchema.apply(db)
                        }
                        for migration in pending {
                            do {
                                try migration.apply(db)
                            } catch {
                                throw RederiveError(.database, "schema migration \"\(migration.id)\" would fail in \(path)", underlying: error)
                            }
                            done.append(migration.id)
                        }
                        return .rollback
                    }
                }
                return done
            }
            var done: [String] = []
            for migration in pending {
                let clock = ContinuousClock()
                let start = clock.now
                do {
                    try database.writeWithoutTransaction { db in
                        try db.inTransaction {
                            try migration.apply(db)
                            let elapsed = (clock.now - start).secondsValue * 1000
                            try db.execute(
                                sql: """
                                    INSERT INTO rederive_schema_migrations (id, applied_at, duration_ms, rederive_version)
                                    VALUES (?, ?, ?, ?)
                                    """,
                                arguments: [migration.id, Timestamp.text(Date()), elapsed, RederiveVersion.current]
                            )
                            return .commit
                        }
                    }
                } catch {
                    throw RederiveError(.database, "schema migration \"\(migration.id)\" failed and was rolled back in \(path)", underlying: error)
                }
                done.append(migration.id)
            }
            return done
        }
        return MigrationOutcome(applied: done, dryRun: dryRun)
    }
}
