import GRDB
import Rederive

/// Runs whose process was killed: recorded as `running`, with no counts, since the process never
/// came to ``SQLiteStore/finishRun(_:status:counts:lease:)``.
///
/// One process derives a SQLite database at a time, under its lease; a run starts only once its process
/// holds the lease. So when a run starts, every other run still `running` lost its process (the lease
/// it held expired, or its process is gone from this host): it is recorded as `interrupted`, with the
/// counts of what it committed, read back from what its commits left. Each record it committed counts
/// once, as every store counts a commit: failed when a processor's failure carries the run's id, else
/// derived when the run replaced one of its values, else unchanged when a stamp carries the run's id.
/// Skipped records left nothing, so they are not counted; a record the run committed and a later
/// command changed again (`invalidate`, `reset`) no longer counts.
enum OrphanedRuns {
    /// Records every run still `running` as `interrupted`, with what it committed; it ended when it
    /// committed last (when it started, if it committed nothing).
    static func interrupt(_ db: Database) throws {
        let orphans = try Int64.fetchAll(
            db, sql: "SELECT id FROM rederive_runs WHERE status = ?", arguments: [RunStatus.running.rawValue]
        )
        for runID in orphans {
            let row = try Row.fetchOne(db, sql: """
                WITH failed AS (
                    SELECT pipeline, record_id FROM rederive_failures WHERE run_id = :run
                ), changed AS (
                    SELECT pipeline, record_id FROM rederive_replaced_stamps WHERE run_id = :run
                    EXCEPT SELECT pipeline, record_id FROM failed
                ), unchanged AS (
                    SELECT pipeline, record_id FROM rederive_stamps WHERE run_id = :run
                    EXCEPT SELECT pipeline, record_id FROM failed
                    EXCEPT SELECT pipeline, record_id FROM changed
                )
                SELECT
                    (SELECT count(*) FROM (SELECT DISTINCT pipeline, record_id FROM failed)) AS failed,
                    (SELECT count(*) FROM changed) AS derived,
                    (SELECT count(*) FROM unchanged) AS unchanged,
                    coalesce(
                        max(
                            coalesce((SELECT max(derived_at) FROM rederive_stamps WHERE run_id = :run), ''),
                            coalesce((SELECT max(failed_at) FROM rederive_failures WHERE run_id = :run), '')
                        ),
                        ''
                    ) AS last_commit
                """, arguments: ["run": runID])
            let lastCommit: String = row?["last_commit"] ?? ""
            try db.execute(
                sql: """
                    UPDATE rederive_runs
                    SET status = ?, ended_at = CASE WHEN ? = '' THEN started_at ELSE ? END,
                        derived = ?, unchanged = ?, failed = ?, skipped = 0
                    WHERE id = ?
                    """,
                arguments: [
                    RunStatus.interrupted.rawValue, lastCommit, lastCommit,
                    row?["derived"] ?? 0, row?["unchanged"] ?? 0, row?["failed"] ?? 0, runID,
                ]
            )
        }
    }
}
