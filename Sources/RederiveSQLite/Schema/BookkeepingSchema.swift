import GRDB

/// rederive's own tables, created and evolved with GRDB's migrator.
///
/// - `rederive_records`: one row per record of every pipeline's table, with the generation of its
///   payload. Triggers on the pipeline's table give the payload a new random generation whenever it is
///   inserted or replaced, so a commit can tell that a payload changed since it was read.
/// - `rederive_stamps`: per record and processor, the logic version that produced the stored values,
///   the payload generation and digest it read, the run and the time. `current` is cleared by the
///   triggers and by invalidation, so counting up-to-date records is an index count.
/// - `rederive_failures`: per record and processor, the last failure at a version and payload; `current`
///   as for stamps. A failure is removed when the processor later succeeds.
/// - `rederive_runs`: every run, with its processors, status and counts.
/// - `rederive_replaced_stamps` and `rederive_replaced_values` (v2): what runs replaced, for rollback.
/// - `rederive_schema_migrations` (v3): the app's own schema migrations once applied.
/// - v4 keys stamps, failures and replaced values by pipeline as well as processor and record
///   (``PipelineKeySchema``).
/// - `rederive_leases` (v5): which process derives the database now (``WorkerLeaseSchema``).
/// - v6 adds to stamps what a dependent processor derived from (``InputStampSchema``).
/// - `rederive_projections` (v7): the stored projections of decoded payloads (``ProjectionSchema``).
/// - `rederive_pauses` and the columns that say what holds or ends a run (v8, ``RunControlSchema``).
enum BookkeepingSchema {
    /// One migration: its identifier, recorded in `grdb_migrations` once applied, and its change.
    typealias Migration = (identifier: String, migrate: @Sendable (Database) throws -> Void)

    /// The migrations for an app's own `DatabaseWriter`, applied by GRDB's migrator as before.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in migrations {
            migrator.registerMigration(migration.identifier, migrate: migration.migrate)
        }
        return migrator
    }

    /// How far a database's bookkeeping is, found without writing anything.
    enum State: Equatable {
        /// No rederive table: a database rederive never prepared.
        case absent
        /// Some migrations are missing: prepared by an older rederive.
        case outdated
        case current
    }

    static func state(_ db: Database) throws -> State {
        // An app that migrates its own schema with GRDB keeps its identifiers in the same table.
        let applied = try migrator.appliedIdentifiers(db)
        let missing = migrations.filter { !applied.contains($0.identifier) }.count
        return missing == 0 ? .current : missing == migrations.count ? .absent : .outdated
    }

    /// Applies the missing migrations inside the caller's transaction, recording each as GRDB's
    /// migrator does, so that a preparation that fails later in the same transaction leaves none of them.
    static func apply(_ db: Database) throws {
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        let applied = try migrator.appliedIdentifiers(db)
        for migration in migrations where !applied.contains(migration.identifier) {
            try migration.migrate(db)
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [migration.identifier])
        }
    }

    static let migrations: [Migration] = [
        ("rederive.v1", { db in
            try db.execute(sql: """
                CREATE TABLE rederive_records (
                    source TEXT NOT NULL,
                    record_id INTEGER NOT NULL,
                    generation INTEGER NOT NULL,
                    PRIMARY KEY (source, record_id)
                ) WITHOUT ROWID;

                CREATE TABLE rederive_stamps (
                    processor TEXT NOT NULL,
                    record_id INTEGER NOT NULL,
                    source TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    generation INTEGER NOT NULL,
                    payload_digest INTEGER NOT NULL,
                    current INTEGER NOT NULL,
                    run_id INTEGER,
                    derived_at TEXT NOT NULL,
                    PRIMARY KEY (processor, record_id)
                ) WITHOUT ROWID;
                CREATE INDEX rederive_stamps_by_version ON rederive_stamps (processor, version, current);
                CREATE INDEX rederive_stamps_by_record ON rederive_stamps (source, record_id);

                CREATE TABLE rederive_failures (
                    processor TEXT NOT NULL,
                    record_id INTEGER NOT NULL,
                    source TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    generation INTEGER NOT NULL,
                    current INTEGER NOT NULL,
                    kind TEXT NOT NULL,
                    message TEXT NOT NULL,
                    run_id INTEGER,
                    failed_at TEXT NOT NULL,
                    PRIMARY KEY (processor, record_id)
                ) WITHOUT ROWID;
                CREATE INDEX rederive_failures_by_version ON rederive_failures (processor, version, current);
                CREATE INDEX rederive_failures_by_record ON rederive_failures (source, record_id);
                CREATE INDEX rederive_failures_by_run ON rederive_failures (run_id);

                CREATE TABLE rederive_runs (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    started_at TEXT NOT NULL,
                    ended_at TEXT,
                    status TEXT NOT NULL,
                    processors TEXT NOT NULL,
                    derived INTEGER NOT NULL DEFAULT 0,
                    unchanged INTEGER NOT NULL DEFAULT 0,
                    failed INTEGER NOT NULL DEFAULT 0,
                    skipped INTEGER NOT NULL DEFAULT 0
                );
                """)
        }),
        ("rederive.v2", ReplacedValuesSchema.create),
        ("rederive.v3", { db in
            // The app's own schema migrations (SchemaMigrator), once applied.
            try db.execute(sql: """
                CREATE TABLE rederive_schema_migrations (
                    id TEXT PRIMARY KEY,
                    applied_at TEXT NOT NULL,
                    duration_ms REAL NOT NULL,
                    rederive_version TEXT NOT NULL
                )
                """)
        }),
        ("rederive.v4", PipelineKeySchema.migrate),
        ("rederive.v5", WorkerLeaseSchema.migrate),
        ("rederive.v6", InputStampSchema.migrate),
        ("rederive.v7", ProjectionSchema.migrate),
        ("rederive.v8-backfill-control", RunControlSchema.migrate),
    ]
}
