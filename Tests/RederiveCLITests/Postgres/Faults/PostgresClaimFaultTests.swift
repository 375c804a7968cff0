#if PostgreSQL
import Foundation
import RederiveCLI
import RederivePostgresTestSupport
import Testing

/// Faults that hit a worker in the middle of a claim, on hosts joined by a network (network
/// namespaces, as in ``PostgresCrossHostTests``).
///
/// A worker is caught inside a claim by holding a lock that claims wait for: its claim statement
/// then waits on the server (`WITH picked …`, waiting for a lock in `pg_stat_activity`). Cut off
/// there, and its session ended on the server's side meanwhile, it waits for an answer that never
/// comes: the server's end of the connection is gone when the link is back.
@Suite("PostgreSQL faults inside a claim", .serialized, .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .timeLimit(.minutes(4)))
struct PostgresClaimFaultTests {
    static let count = 500
    static let seed = "12"
    static let lease: Duration = .seconds(2)
    /// How long after its link is back a worker cut inside a claim may take to take a new lease and
    /// commit again: the lease, the server's idle-in-transaction timeout (30 s), and a margin.
    static let rejoinLimit: Duration = lease + .seconds(30) + .seconds(10)

    /// The values a run on SQLite derives from the same generated corpus, to compare with.
    static func sqliteValues() async throws -> [String: [String]] {
        try await TestStore.sqlite.withHarness { harness in
            _ = try await harness.rederive("generate", "--count", String(count), "--seed", seed, "--corrupt", "0.03")
            _ = try await harness.rederive("run", "--progress", "none")
            return try PostgresCommandTests.derivedValues(harness)
        }
    }

    /// Cuts the victim's link while it is in `session`, waits until its lease is taken over, brings
    /// the link back, and waits until the victim commits with a new lease (its old one is gone, so
    /// a share of its own means one) or ends.
    static func cutOffAndRejoin(_ run: ClaimFaultRun, session: ClaimFaultRun.Session, _ who: String) async throws {
        try run.cutOff(session)
        try await PostgresCrossHostTests.waitUntil("\(who): its lease is taken over", limit: ClaimFaultRun.takeoverLimit, state: run.state) {
            try run.leases()[run.victim.child.pid] == nil
        }
        try run.hosts.reconnect(worker: 1, run.victim)
        try await PostgresCrossHostTests.waitUntil(
            "\(who) commits with a new lease or ends", limit: rejoinLimit, state: run.state
        ) {
            try run.victim.hasEnded || (run.leases()[run.victim.child.pid]?.done ?? 0) > 0
        }
    }

    @Test func aWorkerCutInsideAClaimRejoinsTheRunEveryTime() async throws {
        let sqliteValues = try await Self.sqliteValues()
        try await ClaimFaultRun.with { run, harness in
            for cut in 1...2 {
                try await Self.cutOffAndRejoin(run, session: try await run.catchInsideAClaim(), "the cut-off worker (cut \(cut))")
            }
            let returned = try await run.workers.finish(run.victim)
            #expect(!returned.signaled && [0, 3].contains(returned.status), "\(returned.output) \(returned.errors)")
            let survived = try await run.workers.finish(run.survivor)
            #expect(!survived.signaled && [0, 3].contains(survived.status), "\(survived.output) \(survived.errors)")
            try run.expectEveryRecordCommittedOnce()
            #expect(try PostgresCommandTests.derivedValues(harness, server: run.hosts.server) == sqliteValues)
        }
    }

    /// Cut off while its commit waits for the server, before its COMMIT was sent, a worker gets no
    /// answer: the commit was rolled back. It gives the commit up by its deadline and tries it again
    /// once back, with a new lease if the old one was taken over meanwhile; the records' claims and
    /// stamps decide what is still to derive.
    @Test func aWorkerCutInsideACommitRejoinsTheRun() async throws {
        let sqliteValues = try await Self.sqliteValues()
        try await ClaimFaultRun.with { run, harness in
            try await Self.cutOffAndRejoin(run, session: try await run.catchVictim(.commit), "the worker cut inside a commit")
            let returned = try await run.workers.finish(run.victim)
            #expect(!returned.signaled && [0, 3].contains(returned.status), "\(returned.output) \(returned.errors)")
            #expect(!returned.errors.contains("a commit's outcome is unknown"), "\(returned.errors)")
            let survived = try await run.workers.finish(run.survivor)
            #expect(!survived.signaled && [0, 3].contains(survived.status), "\(survived.output) \(survived.errors)")
            try run.expectEveryRecordCommittedOnce()
            #expect(try PostgresCommandTests.derivedValues(harness, server: run.hosts.server) == sqliteValues)
        }
    }

    /// A worker cut off while its claim holds the records it picked keeps them locked until the
    /// server ends its session (30 s idle in its transaction); the claim then rolls back, and the
    /// records are free again, behind the live workers' cursors. The live workers' next claims take
    /// them, rather than the end of the run.
    @Test func recordsLockedByACutOffClaimAreTakenByTheNextClaims() async throws {
        let count = 800
        try await ClaimFaultRun.with(count: count) { run, _ in
            try run.server.psql(run.database, "CREATE EXTENSION IF NOT EXISTS pgrowlocks")
            let session = try await run.catchVictim(.claimReading)
            let locked = try run.records(lockedBy: session)
            try #require(!locked.isEmpty, "the caught claim holds no record; \(run.state())")
            // Cut, and left so: the victim's session stays on the server, and when it is back the
            // victim would take its records itself, with a lease and a cursor of its own.
            try run.hosts.cut(worker: 1, run.victim)
            try await PostgresCrossHostTests.waitUntil("the server ends the cut-off claim's session", limit: .seconds(90), state: run.state) {
                try !run.isRunning(session)
            }
            var left = count
            let ids = locked.map(String.init).joined(separator: ",")
            try await PostgresCrossHostTests.waitUntil("the records of the cut-off claim are committed", state: run.state) {
                let rows = try run.server.psqlRows(run.database, """
                    SELECT (SELECT count(*) FROM rederive_records WHERE record_id = ANY('{\(ids)}'::bigint[]) AND committed_run IS NULL),
                        (SELECT count(*) FROM rederive_records WHERE committed_run IS NULL)
                    """)
                left = Int(rows.first?[1] ?? "") ?? count
                return rows.first?[0] == "0"
            }
            #expect(left >= count / 4, "only \(left) of \(count) records were left when the cut-off claim's \(locked.count) were committed")
            try run.hosts.reconnect(worker: 1, run.victim)
            // Cut off for longer than its claims are tried again (one lease), the victim rejoins, or
            // ends with the claim's error in one line.
            let returned = try await run.workers.finish(run.victim)
            let said = returned.errors.split(separator: "\n").last { $0.hasPrefix("rederive: ") } ?? ""
            #expect(
                !returned.signaled && ([0, 3].contains(returned.status) || (returned.status == 1 && said.hasPrefix("rederive: cannot claim records in "))),
                "\(returned.output) \(returned.errors)"
            )
            let survived = try await run.workers.finish(run.survivor)
            #expect(!survived.signaled && [0, 3].contains(survived.status), "\(survived.output) \(survived.errors)")
            try run.expectEveryRecordCommittedOnce(count: count)
        }
    }

    @Test func aClaimWhoseSessionTheServerEndsIsTriedAgain() async throws {
        try await ClaimFaultRun.with(count: 250) { run, _ in
            let session = try await run.catchInsideAClaim()
            try run.server.psql(run.database, "SELECT pg_terminate_backend(\(session.pid))")
            try await PostgresCrossHostTests.waitUntil("the worker whose session was ended finishes", limit: .seconds(90), state: run.state) {
                run.victim.hasEnded
            }
            let returned = try await run.workers.finish(run.victim)
            #expect(!returned.signaled && [0, 3].contains(returned.status), "\(returned.output) \(returned.errors)")
            #expect(!returned.errors.contains("rederive: cannot claim"), "\(returned.errors)")
            _ = try await run.workers.finish(run.survivor)
            try run.expectEveryRecordCommittedOnce(count: 250)
        }
    }

    @Test(arguments: [ClaimFaultRun.Trap.claimPicking, .commit])
    func theFirstSignalEndsAWorkerCutOff(inside trap: ClaimFaultRun.Trap) async throws {
        try await ClaimFaultRun.with(count: 250) { run, _ in
            let session = try await run.catchVictim(trap)
            try run.cutOff(session)
            try await Task.sleep(for: .seconds(1))
            run.victim.interrupt()
            try await PostgresCrossHostTests.waitUntil("the interrupted worker ends", limit: .seconds(30), state: run.state) {
                run.victim.hasEnded
            }
            try run.hosts.reconnect(worker: 1, run.victim)
            let interrupted = try await run.workers.finish(run.victim)
            #expect(!interrupted.signaled, "\(interrupted.output) \(interrupted.errors)")
        }
    }
}

/// Two paced workers on two hosts deriving one run of a generated corpus: the victim (worker 1),
/// which the tests cut off or whose session they end, and the survivor (worker 0).
struct ClaimFaultRun {
    let hosts: CrossHosts
    let network: NetworkNamespaces
    let database: String
    let workers: Workers
    let victim: RederiveProcess
    let survivor: RederiveProcess

    var server: PostgresServer { hosts.server }

    /// How long the lease of a worker cut off at any moment may stay before the other worker takes it
    /// over: as long as a rejoin may take (``PostgresClaimFaultTests/rejoinLimit``), since a commit of
    /// the worker cut off with it keeps the lease locked until the server ends its session, and a lease
    /// is never reaped from under a commit.
    static let takeoverLimit: Duration = PostgresClaimFaultTests.rejoinLimit

    /// Sets the run up and hands it to `body` once both workers have committed; skips with a warning
    /// where network namespaces cannot be made (a stopped process on loopback keeps its connections).
    static func with(count: Int = PostgresClaimFaultTests.count, _ body: (ClaimFaultRun, CommandHarness) async throws -> Void) async throws {
        let hosts = try CrossHosts.make(workers: 2)
        defer { hosts.tearDown() }
        guard let network = hosts.network else {
            Issue.record("skipped: network namespaces cannot be created here (\(hosts.loopbackReason ?? ""))", severity: .warning)
            return
        }
        let database = try hosts.server.makeDatabase().split(separator: "/").last.map { String($0.prefix { $0 != "?" }) } ?? ""
        let url = hosts.url(database: database)
        try await CommandHarness.withHarness(serverDatabase: url) { harness in
            let workers = Workers()
            defer { workers.killRemaining() }
            let generated = try await RederiveProcess.run(
                ["generate", "--db", url, "--count", String(count), "--seed", PostgresClaimFaultTests.seed, "--corrupt", "0.03"],
                wrapper: hosts.wrapper(worker: 0), in: harness.directory
            )
            try #require(generated.status == 0, "\(generated.errors)")
            let arguments = ["run", "--db", url, "--parallel", "2", "--batch-size", "10", "--max-rate", "8",
                             "--lease-duration", String(PostgresClaimFaultTests.lease.components.seconds), "--progress", "none"]
            let survivor = try workers.start(arguments, wrapper: hosts.wrapper(worker: 0), in: harness.directory)
            let victim = try workers.start(arguments, wrapper: hosts.wrapper(worker: 1), in: harness.directory)
            let run = ClaimFaultRun(hosts: hosts, network: network, database: database, workers: workers, victim: victim, survivor: survivor)
            try await PostgresCrossHostTests.waitUntil("both workers have committed a batch", state: run.state) {
                let now = try run.leases()
                return [victim, survivor].allSatisfy { now[$0.child.pid]?.done ?? 0 > 0 } || victim.hasEnded || survivor.hasEnded
            }
            try #require(!victim.hasEnded && !survivor.hasEnded, "a worker ended before the fault: \(run.state())")
            try await body(run, harness)
        }
    }

    /// What the server sees of the run, the victim's errors included.
    var probe: SharedRunProbe {
        SharedRunProbe(server: server, database: database, workers: [victim, survivor], watched: victim)
    }

    /// Per worker process with a lease: the records it committed, and those it holds claimed now.
    func leases() throws -> [Int32: (done: Int, claimed: Int)] { try probe.leases() }

    /// What the workers and their sessions are doing, for a test that waits in vain.
    func state() -> String { probe.state() }

    /// The victim's session, caught waiting inside its claim statement.
    struct Session {
        let pid: Int
        let port: Int
    }

    /// A statement of the victim's that a test catches, by holding for a few seconds a lock it waits for.
    struct Trap: Sendable, CustomTestStringConvertible {
        /// What the test locks, as `LOCK TABLE` takes it.
        let lock: String
        /// The statements caught waiting for it, as patterns of `pg_stat_activity.query` (`LIKE`).
        let statements: [String]
        let what: String

        var testDescription: String { what }

        /// A claim picking records, or freeing those of expired leases: before it locks any.
        static let claimPicking = Trap(
            lock: "rederive_records IN EXCLUSIVE MODE",
            statements: ["WITH picked%", "UPDATE rederive_records r SET claimed_by = NULL FROM (%"], what: "inside a claim"
        )
        /// A claim reading the payloads of the records it picked: it holds their rows locked.
        static let claimReading = Trap(
            lock: "room_scans IN ACCESS EXCLUSIVE MODE", statements: ["%OVER (ORDER BY t.%"], what: "reading the payloads it claimed"
        )
        /// A commit adding its counts to the worker's share of the run, its last statement: it has
        /// stored every value of its batch, and holds the batch's rows locked.
        static let commit = Trap(
            lock: "rederive_run_shares IN EXCLUSIVE MODE", statements: ["INSERT INTO rederive_run_shares%"], what: "inside a commit"
        )
    }

    /// Holds a lock that claims wait for, until the victim's claim (picking records, or freeing those
    /// of expired leases) waits for it; returns that session. The lock is let go a few seconds later, cut off or not.
    func catchInsideAClaim() async throws -> Session {
        try await catchVictim(.claimPicking)
    }

    /// Holds the lock of `trap` until one of the victim's sessions waits for it in one of its
    /// statements; returns that session. The lock is let go a few seconds later, cut off or not.
    func catchVictim(_ trap: Trap) async throws -> Session {
        let address = network.workerAddress(1)
        let statements = trap.statements.map { "query LIKE '\($0)'" }.joined(separator: " OR ")
        for _ in 0..<8 {
            let server = self.server
            let database = self.database
            let locker = Task.detached {
                try server.psql(database, "BEGIN; LOCK TABLE \(trap.lock); SELECT pg_sleep(4); COMMIT")
            }
            let deadline = ContinuousClock.now + .seconds(3)
            while ContinuousClock.now < deadline {
                let rows = try server.psqlRows(database, """
                    SELECT pid, client_port FROM pg_stat_activity WHERE client_addr = '\(address)' AND wait_event_type = 'Lock'
                    AND (\(statements))
                    """)
                if let row = rows.first, let pid = Int(row[0]), let port = Int(row[1]) {
                    return Session(pid: pid, port: port)
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            _ = try await locker.value
        }
        throw ProcessError("the victim was never caught \(trap.what); \(state())")
    }

    /// The records whose rows `session` holds locked.
    func records(lockedBy session: Session) throws -> [Int64] {
        try server.psqlRows(database, """
            SELECT r.record_id FROM rederive_records r JOIN pgrowlocks('rederive_records') l ON r.ctid = l.locked_row
            WHERE \(session.pid) = ANY(l.pids)
            """).compactMap { Int64($0[0]) }
    }

    /// Whether `session` still runs on the server.
    func isRunning(_ session: Session) throws -> Bool {
        try server.psql(database, "SELECT count(*) FROM pg_stat_activity WHERE pid = \(session.pid)")
            .trimmingCharacters(in: .whitespacesAndNewlines) != "0"
    }

    /// Unplugs the victim, then ends its claiming session on the server and drops the server's end
    /// of that connection, which would otherwise tell the victim once the link is back: the victim's
    /// claim waits for an answer that never comes.
    func cutOff(_ session: Session) throws {
        try hosts.cut(worker: 1, victim)
        try server.psql(database, "SELECT pg_terminate_backend(\(session.pid), 5000)")
        _ = try PostgresServer.run(
            [NetworkNamespaces.ip, "netns", "exec", network.server, "ss", "-K", "dst", network.workerAddress(1), "dport", "=", ":\(session.port)"],
            asServer: false
        )
    }

    /// The run ended completed, each record committed once, and nothing left claimed or leased.
    func expectEveryRecordCommittedOnce(count: Int = PostgresClaimFaultTests.count) throws {
        let runs = try server.psqlRows(database, "SELECT status FROM rederive_runs")
        #expect(runs == [["completed"]], "\(runs)")
        let totals = try server.psql(database, "SELECT sum(derived + failed), sum(unchanged), count(*) FROM \(PostgresRunCounts.runs)")
            .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|").map(String.init)
        #expect(totals == [String(count), "0", "1"], "\(totals)")
        let leftovers = try server.psql(database, """
            SELECT (SELECT count(*) FROM rederive_records WHERE claimed_by IS NOT NULL) || '|'
                || (SELECT count(*) FROM rederive_leases)
            """).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(leftovers == "0|0", "claimed records | leases")
    }
}
#endif
