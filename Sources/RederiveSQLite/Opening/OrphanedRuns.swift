import Foundation
import GRDB
import Rederive

/// Runs whose process was killed: recorded as `running`, with no counts, since the process never
/// came to ``SQLiteStore/finishRun(_:status:counts:lease:)``.
///
/// What this store reads for the engine's rule (`OrphanedRun`): which runs a live lease derives,
/// and what a run committed. One process derives a SQLite database at a time, under its lease; so a
/// run recorded as running that the runner lease, alive, does not derive lost its process. `runs`
/// shows it interrupted at once without writing; the next run records it so (``interrupt(_:)``).
///
/// What it committed is read back from what its commits left. Each record it committed counts once,
/// as every store counts a commit: failed when a processor's failure carries the run's id, else
/// derived when the run replaced one of its values, else unchanged when a stamp carries the run's id.
/// Skipped records left nothing, so they are not counted; a record the run committed and a later
/// command changed again (`invalidate`, `reset`) no longer counts.
enum OrphanedRuns {
    /// Records every run still `running` that lost its process as `interrupted`, with what it
    /// committed; it ended when it committed last (when it started, if it committed nothing). Called
    /// by the process that holds the lease (`token`), before it records its own run: the run its lease
    /// named before, if any, has ended too.
    static func interrupt(_ db: Database, holding token: String) throws {
        let live = try runsDerivedByLiveLeases(db, except: token)
        let running = try Int64.fetchAll(
            db, sql: "SELECT id FROM rederive_runs WHERE status = ?", arguments: [RunStatus.running.rawValue]
        )
        for runID in running where OrphanedRun.isOrphaned(.running, derivedByLiveLease: live.contains(runID)) {
            let (counts, lastCommit) = try committed(runID, db)
            try db.execute(
                sql: """
                    UPDATE rederive_runs
                    SET status = ?, ended_at = CASE WHEN ? = '' THEN started_at ELSE ? END,
                        derived = ?, unchanged = ?, failed = ?, skipped = 0
                    WHERE id = ?
                    """,
                arguments: [
                    RunStatus.interrupted.rawValue, lastCommit, lastCommit,
                    counts.changed, counts.unchanged, counts.failed, runID,
                ]
            )
        }
    }

    /// The runs that a live lease derives (`OrphanedRun/isLive(unexpired:worker:)`), but for the
    /// lease `token`, if given.
    static func runsDerivedByLiveLeases(_ db: Database, except token: String? = nil) throws -> Set<Int64> {
        let now = Date().timeIntervalSince1970
        let leases = try Row.fetchAll(
            db, sql: "SELECT run_id, host, process_id, expires_at FROM rederive_leases WHERE run_id IS NOT NULL AND token IS NOT ?",
            arguments: [token]
        )
        return Set(leases.compactMap { row in
            let worker = WorkerIdentity(host: row["host"], processID: row["process_id"])
            return OrphanedRun.isLive(unexpired: (row["expires_at"] as Double) > now, worker: worker) ? row["run_id"] : nil
        })
    }

    /// What run `runID` committed, and when it committed last (its stored text; empty when it
    /// committed nothing).
    static func committed(_ runID: Int64, _ db: Database) throws -> (counts: RunCounts, lastCommit: String) {
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
        let counts = RunCounts(changed: row?["derived"] ?? 0, unchanged: row?["unchanged"] ?? 0, failed: row?["failed"] ?? 0)
        return (counts, row?["last_commit"] ?? "")
    }
}
