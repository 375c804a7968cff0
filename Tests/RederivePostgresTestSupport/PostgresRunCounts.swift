#if PostgreSQL
/// SQL for tests that look inside rederive's tables on PostgreSQL: a run's counts are its row's plus
/// the shares its workers' commits added.
package enum PostgresRunCounts {
    /// Every run with its counts, as a table `runs (id, status, derived, unchanged, failed, skipped)`.
    package static let runs = """
        (SELECT r.id, r.status, r.derived + coalesce(sum(s.derived), 0) AS derived,
            r.unchanged + coalesce(sum(s.unchanged), 0) AS unchanged, r.failed + coalesce(sum(s.failed), 0) AS failed,
            r.skipped + coalesce(sum(s.skipped), 0) AS skipped
        FROM rederive_runs r LEFT JOIN rederive_run_shares s ON s.run_id = r.id GROUP BY r.id) AS runs
        """

    /// The records committed by the worker process `pid` (or all live workers when nil), over its leases.
    package static func committed(byProcess pid: Int32? = nil) -> String {
        """
        SELECT coalesce(sum(s.derived + s.unchanged + s.failed), 0) FROM rederive_run_shares s
        JOIN rederive_leases l ON l.token = s.token WHERE \(pid.map { "l.process_id = \($0)" } ?? "l.expires_at > now()")
        """
    }
}
#endif
