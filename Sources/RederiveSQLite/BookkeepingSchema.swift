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
enum BookkeepingSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("rederive.v1") { db in
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
        }
        migrator.registerMigration("rederive.v2", migrate: ReplacedValuesSchema.create)
        migrator.registerMigration("rederive.v3") { db in
            // The app's own schema migrations (SchemaMigrator), once applied.
            try db.execute(sql: """
                CREATE TABLE rederive_schema_migrations (
                    id TEXT PRIMARY KEY,
                    applied_at TEXT NOT NULL,
                    duration_ms REAL NOT NULL,
                    rederive_version TEXT NOT NULL
                )
                """)
        }
        migrator.registerMigration("rederive.v4", migrate: PipelineKeySchema.migrate)
        migrator.registerMigration("rederive.v5", migrate: WorkerLeaseSchema.migrate)
        migrator.registerMigration("rederive.v6", migrate: InputStampSchema.migrate)
        return migrator
    }
}
