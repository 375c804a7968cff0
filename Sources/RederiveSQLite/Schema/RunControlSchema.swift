import GRDB

/// Bookkeeping migration `rederive.v8-backfill-control`: what holds or ends the work of the database.
///
/// - `rederive_pauses`: one row per pause in force, by pipeline and processor (the empty string for
///   the whole pipeline), with when and by whom it was asked; `rederive resume` deletes it.
/// - `rederive_runs.cancel_requested_at`: set by `rederive cancel` on a run in progress; its workers
///   end it as `cancelled`.
/// - `rederive_leases.run_id`, `.hold` and `.hold_since`: the run the lease's process derives, and
///   what holds its workers (`paused`, `throttled (…)`) since when, as it reported it.
enum RunControlSchema {
    static func migrate(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE rederive_pauses (
                pipeline TEXT NOT NULL,
                processor TEXT NOT NULL,
                requested_at TEXT NOT NULL,
                requested_by TEXT NOT NULL,
                PRIMARY KEY (pipeline, processor)
            ) WITHOUT ROWID;
            ALTER TABLE rederive_runs ADD COLUMN cancel_requested_at TEXT;
            ALTER TABLE rederive_leases ADD COLUMN run_id INTEGER;
            ALTER TABLE rederive_leases ADD COLUMN hold TEXT;
            ALTER TABLE rederive_leases ADD COLUMN hold_since REAL;
            """)
    }
}
