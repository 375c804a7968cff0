#if PostgreSQL
import RederiveCLI
import RederivePostgresTestSupport

/// What the worker processes of a run shared on a PostgreSQL database are doing, as the server sees
/// it: for tests that wait for a state of the run, and say what they saw when it never came.
struct SharedRunProbe {
    let server: PostgresServer
    let database: String
    let workers: [RederiveProcess]
    /// The worker whose errors so far ``state()`` shows: the one a test hurts, if any.
    var watched: RederiveProcess?

    /// Per worker process with a lease: the records it committed, and those it holds claimed now.
    func leases() throws -> [Int32: (done: Int, claimed: Int)] {
        try server.psqlRows(database, """
            SELECT l.process_id, (SELECT coalesce(sum(s.derived + s.unchanged + s.failed), 0) FROM rederive_run_shares s WHERE s.token = l.token),
                (SELECT count(*) FROM rederive_records r WHERE r.claimed_by = l.token)
            FROM rederive_leases l
            """).reduce(into: [:]) { leases, row in
            leases[Int32(row[0]) ?? 0] = (Int(row[1]) ?? 0, Int(row[2]) ?? 0)
        }
    }

    /// The leases, the workers, their sessions and what they wait for, and the watched worker's errors.
    func state() -> String {
        let sessions = try? server.psqlRows(database, """
            SELECT pid, coalesce(host(client_addr), 'local'), state, coalesce(wait_event_type, ''), pg_blocking_pids(pid), left(query, 50)
            FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
            """)
        let running = workers.map { "\($0.child.pid) \($0.hasEnded ? "ended" : "runs")" }
        var state = "leases (pid: done, claimed): \((try? leases()).map { "\($0)" } ?? "?"); workers: \(running); sessions: \(sessions ?? [])"
        if let watched {
            state += "; errors of \(watched.child.pid): \(watched.errorsSoFar().suffix(600))"
        }
        return state
    }
}
#endif
