import GRDB

/// Bookkeeping migration `rederive.v2`: the values and stamps each run replaced, for rollback.
///
/// - `rederive_replaced_stamps`: per run, processor and record whose values the run changed, the
///   payload generation the run derived from and the stamp it replaced (`had_stamp` 0 when there was none).
/// - `rederive_replaced_values`: the replaced value of each of that processor's columns; a record that had
///   no derived values yet keeps the columns' defaults here.
///
/// Rows of runs older than the newest ``SQLiteStore/replacedValuesRunLimit`` runs are pruned when a run starts.
enum ReplacedValuesSchema {
    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE rederive_replaced_stamps (
                run_id INTEGER NOT NULL,
                processor TEXT NOT NULL,
                record_id INTEGER NOT NULL,
                source TEXT NOT NULL,
                derived_generation INTEGER NOT NULL,
                had_stamp INTEGER NOT NULL,
                version INTEGER,
                generation INTEGER,
                payload_digest INTEGER,
                current INTEGER,
                stamp_run_id INTEGER,
                derived_at TEXT,
                PRIMARY KEY (run_id, processor, record_id)
            ) WITHOUT ROWID;

            CREATE TABLE rederive_replaced_values (
                run_id INTEGER NOT NULL,
                processor TEXT NOT NULL,
                record_id INTEGER NOT NULL,
                column_name TEXT NOT NULL,
                value,
                PRIMARY KEY (run_id, processor, record_id, column_name)
            ) WITHOUT ROWID;
            """)
    }

    /// Forgets what runs older than the newest `keep` runs replaced.
    static func prune(_ db: Database, newestRun: Int64, keep: Int) throws {
        let oldest = newestRun - Int64(keep)
        try db.execute(sql: "DELETE FROM rederive_replaced_stamps WHERE run_id <= ?", arguments: [oldest])
        try db.execute(sql: "DELETE FROM rederive_replaced_values WHERE run_id <= ?", arguments: [oldest])
    }
}
