/// A store that applies an app's schema migrations: each store does it in its own way (SQLite through
/// GRDB's `DatabaseMigrator`, PostgreSQL under an advisory lock), and both keep, per migration applied,
/// its identifier, time, duration and rederive's version in `rederive_schema_migrations`.
public protocol SchemaMigrationApplier: Sendable {
    /// Every registered migration, applied or pending, in order.
    func migrationStates(_ migrator: SchemaMigrator) async throws -> [MigrationState]

    /// Applies the pending migrations up to `target` (all when nil), each in its own transaction.
    ///
    /// A migration that fails rolls back completely and stops the rest: the error names it, and the
    /// database is as the previous migration left it. With `dryRun`, the pending migrations are applied
    /// in one transaction that is rolled back, so what would fail fails, and nothing is written. A
    /// pending step the store cannot run stops everything before anything is applied.
    func migrate(_ migrator: SchemaMigrator, to target: String?, dryRun: Bool) async throws -> MigrationOutcome
}
