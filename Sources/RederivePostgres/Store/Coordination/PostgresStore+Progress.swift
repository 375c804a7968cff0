#if PostgreSQL
import Foundation
import PostgresNIO
import Rederive

/// How far each run that workers derive now has got: the run's count from when it started, and each
/// worker's share (its commits' counts, the time of its last commit, its recent rate, its heartbeat).
extension PostgresStore: SharedRunReporting {
    /// A worker that has committed nothing for this long has no recent rate.
    static let recentRateHorizon = 30

    /// Every run recorded as running that a live lease still derives (one whose workers are all gone
    /// shows as interrupted: `OrphanedRun`), oldest first, with its workers' shares; a worker whose
    /// lease is gone keeps its share, without a process or a heartbeat.
    public func runsInProgress() async throws -> [SharedRunProgress] {
        let logger = self.logger
        return try await withConnection("read") { connection in
            let live = try await Self.runsDerivedByLiveLeases(connection, logger)
            let runs = try await connection.query("""
                SELECT id, started_at, pending::text FROM rederive_runs WHERE status = 'running' ORDER BY id
                """, logger: logger).collect { row in try row.decode((Int64, Date, String?).self) }
                .filter { !OrphanedRun.isOrphaned(.running, derivedByLiveLease: live.contains($0.0)) }
            guard !runs.isEmpty else { return [] }
            var statement = SQLStatement()
            statement.sql = """
                SELECT s.run_id, s.derived, s.unchanged, s.failed, s.skipped, s.committed_at,
                    CASE WHEN s.committed_at > clock_timestamp() - make_interval(secs => \(Self.recentRateHorizon)) THEN s.recent_rate END,
                    l.host, l.process_id, l.process_start, l.renewed_at
                FROM rederive_run_shares s LEFT JOIN rederive_leases l ON l.token = s.token
                WHERE s.run_id = ANY(\(statement.bind(runs.map(\.0))))
                ORDER BY s.run_id, l.acquired_at NULLS LAST, s.token
                """
            var shares: [Int64: [SharedRunProgress.Share]] = [:]
            for try await row in try await connection.run(statement, logger: logger) {
                let (run, derived, unchanged, failed, skipped, committed, rate, host, pid, start, renewed) = try row.decode(
                    (Int64, Int64, Int64, Int64, Int64, Date?, Double?, String?, Int32?, String?, Date?).self
                )
                let worker = host.flatMap { host in
                    pid.map { WorkerIdentity(host: host, processID: $0, start: start.flatMap(ProcessStart.init)) }
                }
                shares[run, default: []].append(SharedRunProgress.Share(
                    worker: worker,
                    counts: RunCounts(changed: Int(derived), unchanged: Int(unchanged), failed: Int(failed), skipped: Int(skipped)),
                    recentRate: rate, lastCommit: committed, lastHeartbeat: renewed
                ))
            }
            return runs.map { id, started, pending in
                let total = pending.flatMap { try? JSONDecoder().decode([String: Int].self, from: Data($0.utf8)) }?.values.reduce(0, +)
                return SharedRunProgress(runID: id, startedAt: started, total: total, shares: shares[id] ?? [])
            }
        }
    }
}
#endif
