import GRDB
import Rederive

/// Bookkeeping migration `rederive.v2`: the values and stamps each run replaced, for rollback.
///
/// - `rederive_replaced_stamps`: per run, processor and record whose values the run changed, the
///   payload generation the run derived from and the stamp it replaced (`had_stamp` 0 when there was none).
/// - `rederive_replaced_values`: the replaced value of each of that processor's columns; a record that had
///   no derived values yet keeps the columns' defaults here.
///
/// When a run starts, only the newest ``SQLiteStore/replacedValuesRunLimit`` runs that changed values keep their rows.
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

    /// Forgets what runs replaced, but for the newest `keep` runs that changed values
    /// (`RollbackRules`): runs that changed nothing use up none of the window.
    static func prune(_ db: Database, keep: Int) throws {
        // The newest keep + 1 runs that keep rows, each found on the primary key, without a scan.
        var runs: [Int64] = []
        var below = Int64.max
        while runs.count <= keep, let run = try Int64.fetchOne(
            db, sql: "SELECT max(run_id) FROM rederive_replaced_stamps WHERE run_id < ?", arguments: [below]
        ) {
            runs.append(run)
            below = run
        }
        guard let newestForgotten = RollbackRules.runsToForget(runs, keep: keep).max() else { return }
        try db.execute(sql: "DELETE FROM rederive_replaced_stamps WHERE run_id <= ?", arguments: [newestForgotten])
        try db.execute(sql: "DELETE FROM rederive_replaced_values WHERE run_id <= ?", arguments: [newestForgotten])
    }
}
