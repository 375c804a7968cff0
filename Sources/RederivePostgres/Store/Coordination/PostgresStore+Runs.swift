#if PostgreSQL
import Foundation
import PostgresNIO
import Rederive

/// Recorded runs: one per job, shared by the worker processes that derive it; its counts are the sum
/// of what each worker's commits added to its share.
extension PostgresStore {
    /// Joins the run that other live workers derive with the same processors, or records a new one:
    /// the workers of one job, on however many hosts, share one run in `history`, whose counts they
    /// all add to and which `rollback` undoes as a whole.
    ///
    /// The worker that starts the run counts its pending records, once, and keeps the count in the
    /// run's row; a worker joining it takes what is left of that count. Counting reads every stamp row
    /// of the pipeline, so a count per worker would cost the server as much again for each worker
    /// started. Workers started together wait here while the first one counts, rather than each
    /// counting on its own.
    public func startRun(_ plans: [RunPlan], lease: WorkerLease) async throws -> StartedRun {
        let processorsJSON = String(decoding: try JSONEncoder().encode(RunPlan.processorVersions(of: plans)), as: UTF8.self)
        let logger = self.logger
        return try await transaction("record a run in") { connection in
            // One worker at a time decides whether to join or start.
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext('rederive runs'))", logger: logger)
            try await Self.interruptOrphanedRuns(connection, logger)
            var join = SQLStatement()
            join.sql = """
                SELECT r.id, r.pending::text,
                    (SELECT coalesce(sum(s.derived + s.unchanged + s.failed), 0)::bigint FROM rederive_run_shares s WHERE s.run_id = r.id)
                FROM rederive_runs r
                WHERE r.status = \(join.bind(RunStatus.running.rawValue)) AND r.processors = \(join.bind(processorsJSON, as: "jsonb"))
                AND r.cancel_requested_at IS NULL
                AND EXISTS (SELECT 1 FROM rederive_leases l WHERE l.run_id = r.id AND l.token <> \(join.bind(lease.token))
                    AND l.expires_at > clock_timestamp())
                ORDER BY r.id DESC LIMIT 1
                """
            let joined = try await connection.run(join, logger: logger).collect { try $0.decode((Int64, String?, Int64).self) }.first
            let started: StartedRun
            if let (runID, counted, committed) = joined, let counted = RunPending(json: counted, plans: plans) {
                started = StartedRun(id: runID, pending: counted.left(afterCommitting: Int(committed)))
            } else {
                var pending: [Int] = []
                for plan in plans {
                    pending.append(try await Self.staleCount(plan, connection, logger))
                }
                // A run started by an older rederive kept no count: it is joined, counted here.
                let runID = if let (joined, _, _) = joined {
                    joined
                } else {
                    try await self.insertRun(processorsJSON, pending: RunPending(plans: plans, counts: pending), connection)
                }
                started = StartedRun(id: runID, pending: pending)
            }
            var attach = SQLStatement()
            attach.sql = "UPDATE rederive_leases SET run_id = \(attach.bind(started.id)) WHERE token = \(attach.bind(lease.token))"
            try await connection.run(attach, logger: logger)
            return started
        }
    }

    /// Attaches the new lease to the run, under the runs' lock, so that a worker starting meanwhile
    /// finds the run derived by a live lease and joins it. A run that a worker starting meanwhile
    /// recorded as interrupted (every lease of it had lapsed), or that its other workers ended while
    /// this one was cut off, is running again: this process still derives it. A cancelled run stays so.
    public func rejoinRun(_ runID: Int64, lease: WorkerLease) async throws {
        let logger = self.logger
        do {
            try await watchedTransaction("rejoin a run in", within: max(lease.duration, .seconds(5)), cancelled: .giveUp) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(hashtext('rederive runs'))", logger: logger)
                var attach = SQLStatement()
                attach.sql = "UPDATE rederive_leases SET run_id = \(attach.bind(runID)) WHERE token = \(attach.bind(lease.token))"
                try await connection.run(attach, logger: logger)
                var revive = SQLStatement()
                revive.sql = """
                    UPDATE rederive_runs SET status = \(revive.bind(RunStatus.running.rawValue)), ended_at = NULL
                    WHERE id = \(revive.bind(runID)) AND status <> \(revive.bind(RunStatus.cancelled.rawValue))
                    AND cancel_requested_at IS NULL
                    """
                try await connection.run(revive, logger: logger)
            }
        } catch let fault as ConnectionFault {
            throw fault.outage
        }
    }

    /// Leaves the run; the last live worker to leave ends it with its status.
    public func finishRun(_ runID: Int64, status: RunStatus, counts: RunCounts, lease: WorkerLease) async throws {
        let logger = self.logger
        try await transaction("record a run in") { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext('rederive runs'))", logger: logger)
            var leave = SQLStatement()
            leave.sql = "UPDATE rederive_leases SET run_id = NULL WHERE token = \(leave.bind(lease.token))"
            try await connection.run(leave, logger: logger)
            var others = SQLStatement()
            others.sql = """
                SELECT count(*) FROM rederive_leases WHERE run_id = \(others.bind(runID)) AND expires_at > clock_timestamp()
                """
            guard try await connection.count(others, logger: logger) == 0 else { return }
            try await self.endRun(runID, status: status, connection)
            // The run's own values count now: the window holds exactly the newest runs that changed values.
            try await self.pruneReplaced(connection)
        }
    }

    /// Records as `interrupted` every run still `running` whose workers are all gone: no lease that
    /// has not expired is attached to it. Its workers were killed or cut off past their leases' expiry
    /// and never came to ``finishRun(_:status:counts:lease:)``; its counts are already right, since
    /// every commit added its own. It ended when it committed last (when it started, if it committed
    /// nothing), as ``runs(limit:)`` showed it (`OrphanedRun`). Called under the runs' advisory lock,
    /// where a run is started and its first lease attached in one transaction.
    static func interruptOrphanedRuns(_ connection: PostgresConnection, _ logger: Logger) async throws {
        var interrupt = SQLStatement()
        interrupt.sql = """
            UPDATE rederive_runs r SET status = \(interrupt.bind(RunStatus.interrupted.rawValue)),
                ended_at = coalesce((SELECT max(s.committed_at) FROM rederive_run_shares s WHERE s.run_id = r.id), r.started_at)
            WHERE r.status = \(interrupt.bind(RunStatus.running.rawValue))
            AND NOT EXISTS (SELECT 1 FROM rederive_leases l WHERE l.run_id = r.id AND l.expires_at > clock_timestamp())
            """
        try await connection.run(interrupt, logger: logger)
    }

    /// Records a new run and returns its id; only the newest runs keep what they replaced.
    private func insertRun(_ processorsJSON: String, pending: RunPending? = nil, _ connection: PostgresConnection) async throws -> Int64 {
        var start = SQLStatement()
        start.sql = """
            INSERT INTO rederive_runs (started_at, status, processors, pending)
            VALUES (now(), \(start.bind(RunStatus.running.rawValue)), \(start.bind(processorsJSON, as: "jsonb")),
                \(pending.map { start.bind($0.json, as: "jsonb") } ?? start.bindNull(as: "jsonb"))) RETURNING id
            """
        let runID = try await connection.run(start, logger: logger).collect { try $0.decode(Int64.self) }.first ?? 0
        try await pruneReplaced(connection)
        return runID
    }

    /// Forgets what runs replaced, but for the newest ``replacedValuesRunLimit`` runs that changed
    /// values (`RollbackRules`): runs that changed nothing use up none of the window.
    private func pruneReplaced(_ connection: PostgresConnection) async throws {
        // The newest runs that keep rows, a few index probes rather than a scan of the kept rows.
        var newest = SQLStatement()
        newest.sql = """
            WITH RECURSIVE kept(run_id, n) AS (
                (SELECT run_id, 1 FROM rederive_replaced ORDER BY run_id DESC LIMIT 1)
                UNION ALL
                SELECT (SELECT max(l.run_id) FROM rederive_replaced l WHERE l.run_id < kept.run_id), kept.n + 1
                FROM kept WHERE kept.run_id IS NOT NULL AND kept.n <= \(newest.bind(Int64(replacedValuesRunLimit)))
            )
            SELECT run_id FROM kept WHERE run_id IS NOT NULL
            """
        let runs = try await connection.run(newest, logger: logger).collect { try $0.decode(Int64.self) }
        guard let newestForgotten = RollbackRules.runsToForget(runs, keep: replacedValuesRunLimit).max() else { return }
        var prune = SQLStatement()
        prune.sql = "DELETE FROM rederive_replaced WHERE run_id <= \(prune.bind(newestForgotten))"
        try await connection.run(prune, logger: logger)
    }

    private func endRun(_ runID: Int64, status: RunStatus, _ connection: PostgresConnection) async throws {
        var end = SQLStatement()
        end.sql = """
            UPDATE rederive_runs SET ended_at = now(), status = \(end.bind(status.rawValue)) WHERE id = \(end.bind(runID))
            """
        try await connection.run(end, logger: logger)
    }

    /// The recorded runs, newest first. A run whose workers are all gone shows as interrupted, with
    /// what it committed (`OrphanedRun`); nothing is written.
    public func runs(limit: Int?) async throws -> [RunHistoryEntry] {
        var statement = SQLStatement()
        statement.sql = """
            SELECT r.id, r.started_at, r.ended_at, r.status, r.processors::text,
                r.derived + coalesce(s.derived, 0), r.unchanged + coalesce(s.unchanged, 0),
                r.failed + coalesce(s.failed, 0), r.skipped + coalesce(s.skipped, 0), s.committed_at
            FROM (SELECT * FROM rederive_runs ORDER BY id DESC LIMIT \(statement.bind(Int64(limit ?? Int(Int32.max))))) r
            LEFT JOIN LATERAL (
                SELECT sum(derived)::bigint AS derived, sum(unchanged)::bigint AS unchanged,
                    sum(failed)::bigint AS failed, sum(skipped)::bigint AS skipped, max(committed_at) AS committed_at
                FROM rederive_run_shares WHERE run_id = r.id
            ) s ON true
            ORDER BY r.id DESC
            """
        let logger = self.logger
        return try await withConnection("read") { [statement] connection in
            let live = try await Self.runsDerivedByLiveLeases(connection, logger)
            return try await connection.run(statement, logger: logger).collect { row in
                let (id, started, ended, status, processors, derived, unchanged, failed, skipped, lastCommit) = try row.decode(
                    (Int64, Date, Date?, String, String, Int64, Int64, Int64, Int64, Date?).self
                )
                let counts = RunCounts(changed: Int(derived), unchanged: Int(unchanged), failed: Int(failed), skipped: Int(skipped))
                let recorded = RunHistoryEntry(
                    id: id, startedAt: started, endedAt: ended, status: RunStatus(rawValue: status) ?? .failed,
                    processors: (try? JSONDecoder().decode([ProcessorVersion].self, from: Data(processors.utf8))) ?? [],
                    counts: counts
                )
                // Every commit added its own counts: they are what the run committed.
                return OrphanedRun.shown(recorded, derivedByLiveLease: live.contains(id)) { (counts, lastCommit) }
            }
        }
    }

    /// The runs that a live lease derives (`OrphanedRun/isLive(unexpired:worker:)`).
    static func runsDerivedByLiveLeases(_ connection: PostgresConnection, _ logger: Logger) async throws -> Set<Int64> {
        let leases = try await connection.query("""
            SELECT run_id, host, process_id, process_start, expires_at > clock_timestamp()
            FROM rederive_leases WHERE run_id IS NOT NULL
            """, logger: logger).collect { row in
            let (runID, host, processID, start, unexpired) = try row.decode((Int64, String, Int32, String?, Bool).self)
            let worker = WorkerIdentity(host: host, processID: processID, start: start.flatMap(ProcessStart.init))
            return OrphanedRun.isLive(unexpired: unexpired, worker: worker) ? runID : nil
        }
        return Set(leases.compactMap { $0 })
    }
}
#endif
