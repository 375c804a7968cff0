#if PostgreSQL
import Foundation
import Glibc
import RederiveCLI
import RederivePostgresTestSupport
import Testing

/// Workers on three hosts share one run over a network: the server in a network namespace, each
/// worker in another, joined by a switch. One worker is killed with SIGKILL mid-run; another is
/// unplugged past its lease's expiry, then plugged back in. The records end exactly as a single
/// SQLite process derives them, each committed once, with no lease or claim left behind.
///
/// Where this process may not create namespaces, the same runs on loopback, and the test says so
/// with a warning: the unplugged worker is then stopped (SIGSTOP) and continued (SIGCONT), which is
/// a partition as the worker sees it.
@Suite("PostgreSQL across hosts", .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .timeLimit(.minutes(5)))
struct PostgresCrossHostTests {
    static let count = 300
    static let seed = "11"

    @Test func threeHostsOneKilledOneCutOffDeriveEveryRecordOnce() async throws {
        try await CrossHostCorpus.with(count: Self.count, seed: Self.seed, workers: 3) { corpus in
            let (hosts, server, database, url) = (corpus.hosts, corpus.server, corpus.database, corpus.url)
            let (harness, workers, sqliteValues) = (corpus.harness, corpus.workers, corpus.sqliteValues)

            // Paced, so that the kill and the cut land while every worker still has work.
            let arguments = ["run", "--db", url, "--parallel", "2", "--batch-size", "10", "--max-rate", "10",
                             "--lease-duration", "2", "--progress", "none"]
            let started = try (0..<3).map { try workers.start(arguments, wrapper: hosts.wrapper(worker: $0), in: harness.directory) }
            let (victim, cutOff, survivor) = (started[0], started[1], started[2])
            let probe = SharedRunProbe(server: server, database: database, workers: started)
            let (leases, state) = (probe.leases, probe.state)
            try await Self.waitUntil("every worker has committed a batch", state: state) {
                let now = try leases()
                return started.allSatisfy { now[$0.child.pid]?.done ?? 0 > 0 } || started.contains(where: \.hasEnded)
            }
            let ended = started.filter(\.hasEnded).map { "\($0.child.pid): \((try? $0.outputSoFar()) ?? "") \($0.errorsSoFar())" }
            try #require(ended.isEmpty, "workers ended before the kill and the cut: \(ended)")

            // Paced, a worker holds claims only briefly: the victim is stopped until it is caught holding
            // some (else let go and caught again), so that the survivor has records to take over.
            try await Self.catchHolding(victim, "the worker to kill", leases: leases, state: state, stop: {
                _ = Glibc.kill(victim.child.pid, SIGSTOP)
            }, resume: {
                _ = Glibc.kill(victim.child.pid, SIGCONT)
            })
            _ = Glibc.kill(victim.child.pid, SIGKILL)
            let killed = try await workers.finish(victim)
            #expect(killed.signaled && killed.status == SIGKILL)

            // Cut off between transactions (holding claims or not: it rarely does out of one), so that
            // its lease expires on time: a session cut mid-transaction keeps its locks, which claims
            // skip, until the server ends it (idle_in_transaction_session_timeout, 30 s).
            try await Self.catchHolding(cutOff, "the worker to cut off", holding: false, leases: leases, state: state, stop: {
                try hosts.cut(worker: 1, cutOff)
            }, resume: {
                try hosts.reconnect(worker: 1, cutOff)
            }, idle: {
                try hosts.sessionsIdle(ofWorker: 1, database: database)
            })
            // Past its lease's expiry: the survivor reaped the lease and took its records over.
            try await Self.waitUntil("the cut-off worker's lease is taken over", limit: .seconds(30), state: state) {
                try leases()[cutOff.child.pid] == nil
            }
            try hosts.reconnect(worker: 1, cutOff)
            // Back, it learns at its next commit or claim that its lease is gone: a commit in flight is
            // rejected (counted as skipped), and it takes a new lease and derives on with the others.
            let returned = try await workers.finish(cutOff)
            #expect(!returned.signaled && [0, 3].contains(returned.status), "\(returned.output) \(returned.errors)")
            // What it says on the way is the log of a claim retried or an outage, never an error.
            let said = returned.errors.split(separator: "\n")
            #expect(said.allSatisfy { $0.contains(" warning ") || $0.contains(" info ") }, "\(returned.errors)")

            let finished = try await workers.finish(survivor)
            #expect(finished.status == 3, "\(finished.output) \(finished.errors)")

            // The three workers shared one run, which the last to finish ended.
            let runs = try server.psqlRows(database, "SELECT status FROM rederive_runs")
            #expect(runs == [["completed"]], "\(runs)")
            // Each record was committed once: the run's counts (the killed worker's commits included,
            // since every commit adds to its share of the run) sum to the corpus, and nothing was derived twice.
            let totals = try server.psql(database, "SELECT sum(derived + failed), sum(unchanged), count(*) FROM \(PostgresRunCounts.runs)")
                .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|").map(String.init)
            #expect(totals == [String(Self.count), "0", "1"], "\(totals)")
            let leftovers = try server.psql(database, """
                SELECT (SELECT count(*) FROM rederive_records WHERE claimed_by IS NOT NULL) || '|'
                    || (SELECT count(*) FROM rederive_leases)
                """).trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(leftovers == "0|0", "claimed records | leases")
            #expect(try PostgresCommandTests.derivedValues(harness, server: server) == sqliteValues)

            let again = try await RederiveProcess.run(["run", "--db", url, "--progress", "none"], wrapper: hosts.wrapper(worker: 2), in: harness.directory)
            #expect(again.output.contains("0 derived, 0 unchanged, 0 failed"), "\(again.output) \(again.errors)")
        }
    }

    /// Stops `process` (by `stop`) until it is caught with its lease, holding claimed records if
    /// `holding`, and with every session `idle` (out of a transaction), resuming it in between; fails
    /// the test if that takes past `limit` or the process ends meanwhile.
    static func catchHolding(
        _ process: RederiveProcess, _ what: String, holding: Bool = true, leases: () throws -> [Int32: (done: Int, claimed: Int)],
        state: () -> String, limit: Duration = .seconds(120), stop: () throws -> Void, resume: () throws -> Void,
        idle: () throws -> Bool = { true }
    ) async throws {
        let deadline = ContinuousClock.now + limit
        func caught() throws -> Bool {
            guard let lease = try leases()[process.child.pid], lease.claimed > 0 || !holding else { return false }
            return try idle()
        }
        while true {
            // Stopped only when it looks ready, and checked again once stopped: a cut that lands
            // mid-statement is undone, and the worker's connections given time to recover.
            if try caught() {
                try stop()
                if try caught() { return }
                try resume()
                try await Task.sleep(for: .milliseconds(500))
            }
            guard !process.hasEnded, ContinuousClock.now < deadline else {
                throw ProcessError("\(what) was never caught as required; \(state())")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Polls `condition` until it holds; fails the test if it still does not after `limit`, which
    /// only a hang reaches, with what `state` says then.
    static func waitUntil(
        _ what: String, limit: Duration = .seconds(120), state: () -> String = { "" }, _ condition: () throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + limit
        while try !condition() {
            guard ContinuousClock.now < deadline else {
                throw ProcessError("still waiting, after \(limit), until \(what); \(state())")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}

/// Where the test's server and workers run: each in a network namespace of its own, or, when this
/// process may not create namespaces, all on loopback with the shared cluster.
struct CrossHosts {
    let server: PostgresServer
    let network: NetworkNamespaces?
    /// Why the hosts are on loopback; nil when they are namespaces.
    let loopbackReason: String?

    static func make(workers: Int) throws -> CrossHosts {
        let network: NetworkNamespaces
        do {
            network = try NetworkNamespaces.create(workers: workers)
        } catch {
            return CrossHosts(server: try PostgresServer.shared(), network: nil, loopbackReason: error.description)
        }
        do {
            let server = try PostgresServer.start(inNamespace: network.server, address: network.serverAddress, trusting: network.network)
            return CrossHosts(server: server, network: network, loopbackReason: nil)
        } catch {
            network.tearDown()
            throw error
        }
    }

    /// How the workers reach `database`.
    func url(database: String) -> String {
        guard let network else { return server.url(database: database) }
        return "postgres://postgres@\(network.serverAddress):\(server.port)/\(database)?sslmode=disable"
    }

    /// The command prefix that runs a program on worker `index`'s host.
    func wrapper(worker index: Int) -> [String] {
        network.map { $0.exec(in: $0.workers[index]) } ?? []
    }

    /// Cuts worker `index` (running as `process`) off from the server: unplugs its host, or on
    /// loopback stops the process.
    func cut(worker index: Int, _ process: RederiveProcess) throws {
        if let network {
            try network.setLink(ofWorker: index, up: false)
        } else {
            _ = Glibc.kill(process.child.pid, SIGSTOP)
        }
    }

    /// Undoes ``cut(worker:_:)``.
    func reconnect(worker index: Int, _ process: RederiveProcess) throws {
        if let network {
            try network.setLink(ofWorker: index, up: true)
        } else {
            _ = Glibc.kill(process.child.pid, SIGCONT)
        }
    }

    /// Whether no session of worker `index` is in a transaction. Only namespaces tell the workers'
    /// sessions apart (by address); on loopback it is assumed.
    func sessionsIdle(ofWorker index: Int, database: String) throws -> Bool {
        guard let network else { return true }
        return try server.psql(database, """
            SELECT count(*) FROM pg_stat_activity WHERE client_addr = '\(network.workerAddress(index))' AND state <> 'idle'
            """).trimmingCharacters(in: .whitespacesAndNewlines) == "0"
    }

    /// Stops the cluster started for the namespaces and deletes them; the shared cluster stays.
    func tearDown() {
        guard let network else { return }
        server.stop()
        network.tearDown()
    }
}

/// The worker processes of a test; those not yet reaped when it ends (it failed) are killed and
/// reaped, so that none outlives it, stopped or not.
final class Workers {
    private var unreaped: [RederiveProcess] = []

    func start(_ arguments: [String], wrapper: [String] = [], in directory: URL, program: String = "rederive") throws -> RederiveProcess {
        let process = try RederiveProcess.start(arguments, wrapper: wrapper, in: directory, program: program)
        unreaped.append(process)
        return process
    }

    /// Waits for `process` to end and reaps it; kills it if it has not ended after `limit`, which
    /// only a hang reaches, and fails the test then.
    func finish(_ process: RederiveProcess, limit: Duration = .seconds(120)) async throws -> RederiveProcess.Outcome {
        let deadline = ContinuousClock.now + limit
        while !process.hasEnded && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        if !process.hasEnded {
            Issue.record("worker \(process.child.pid) still runs after \(limit); killed")
            _ = Glibc.kill(process.child.pid, SIGCONT)
            process.kill()
        }
        unreaped.removeAll { $0.child.pid == process.child.pid }
        return try await process.wait()
    }

    func killRemaining() {
        for process in unreaped {
            _ = Glibc.kill(process.child.pid, SIGCONT)
            process.kill()
            _ = process.child.wait()
        }
        unreaped = []
    }
}
#endif
