#if PostgreSQL
import Foundation
import Glibc
import Rederive
import RederivePostgres
import RederivePostgresTestSupport
import Synchronization
import Testing

/// A connection that breaks while a statement waits on it, broken for real: a relay in this process
/// (``TCPRelay``) that resets or ends it, the server ending the session, or the session's process
/// killed. The statement fails when the connection breaks, with a reason that names what happened,
/// never at its deadline as "no answer"; and a store whose connections the server refused claims
/// again as soon as the server takes them, without waiting out the connection pool's backoff.
@Suite("PostgreSQL connections broken under a statement", .serialized, .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .timeLimit(.minutes(4)))
struct PostgresBrokenConnectionTests {
    /// How a waiting claim's connection is broken, and the reason its failure gives.
    enum Break: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case reset, endOfFile, terminated, killed

        var testDescription: String { rawValue }

        var reason: String {
            switch self {
            case .reset: "the connection was reset"
            case .endOfFile, .killed: "the server closed the connection"
            case .terminated: "the session was terminated by an administrator (pg_terminate_backend, or the server shutting down)"
            }
        }
    }

    /// A claim's lease, long enough that its deadline (as long) is never what ends it here.
    static let lease: Duration = .seconds(30)

    @Test(arguments: Break.allCases)
    func aClaimWhoseConnectionBreaksFailsWithWhatHappenedAndTheNextOneClaims(_ fault: Break) async throws {
        let server = try PostgresServer.shared()
        let relay = try TCPRelay(to: server.port)
        defer { relay.stop() }
        let fixture = try await PostgresClaimFixture(records: 12, port: relay.port)
        defer { fixture.store.close() }
        let store = fixture.store
        let database = PostgresServer.databaseName(in: "\(store.location)")
        let lease = try await fixture.lease(1, lasting: Self.lease)
        _ = try await store.startRun([fixture.plan], lease: lease)

        let locker = try await Self.holdClaimsUp(server, database)
        let claim = Task { try await store.claim(fixture.plan, limit: 4, byteLimit: 1 << 20, lease: lease) }
        let session = try await Self.waitingClaim(server, database)
        switch fault {
        case .reset: relay.inject(.reset)
        case .endOfFile: relay.inject(.endOfFile)
        case .terminated: try server.psql(database, "SELECT pg_terminate_backend(\(session))")
        case .killed: _ = Glibc.kill(pid_t(session), SIGKILL)
        }
        let error = try #require(await #expect(throws: RederiveError.self) { _ = try await claim.value })
        #expect("\(error)" == "cannot claim records in \(store.location): \(fault.reason)")
        #expect(error.isOutage)
        locker.wait()
        // The store carries on: the next claim gets the records (a killed session's server restarts
        // its sessions first, which the claims wait out).
        var claimed: [PendingRecord] = []
        for _ in 0..<40 where claimed.isEmpty {
            do {
                claimed = try await store.claim(fixture.plan, limit: 4, byteLimit: 1 << 20, lease: lease)
            } catch let error as RederiveError where error.isTransient {
                try await Task.sleep(for: .milliseconds(250))
            }
        }
        #expect(claimed.count == 4)
    }

    /// A worker whose claim's connection ends under it says why in its outage line and claims again
    /// at once: the run ends completed, every record committed once.
    @Test func aWorkerWhoseClaimConnectionEndsSaysWhyAndCarriesOn() async throws {
        let count = 300
        let server = try PostgresServer.shared()
        let relay = try TCPRelay(to: server.port)
        defer { relay.stop() }
        let url = try server.makeDatabase()
        let database = PostgresServer.databaseName(in: url)
        let relayed = "postgres://postgres@127.0.0.1:\(relay.port)/\(database)?sslmode=disable"
        try await CommandHarness.withHarness(serverDatabase: relayed) { harness in
            let workers = Workers()
            defer { workers.killRemaining() }
            let generated = try await RederiveProcess.run(["generate", "--db", url, "--count", String(count), "--seed", "38"], in: harness.directory)
            try #require(generated.status == 0, "\(generated.errors)")
            let worker = try workers.start(
                ["run", "--db", relayed, "--parallel", "2", "--batch-size", "10", "--max-rate", "40",
                 "--lease-duration", String(Self.lease.components.seconds), "--progress", "none"],
                in: harness.directory
            )
            try await Self.waitUntil("the worker commits a batch", within: .seconds(60)) {
                try server.psql(database, "SELECT count(*) > 0 FROM rederive_records WHERE committed_run IS NOT NULL")
                    .trimmingCharacters(in: .whitespacesAndNewlines) == "t" || worker.hasEnded
            }
            try #require(!worker.hasEnded, "the worker ended before its connection was broken")
            let locker = try await Self.holdClaimsUp(server, database)
            _ = try await Self.waitingClaim(server, database)
            // Whatever else the worker has in flight waits for the same lock, short of its COMMIT.
            try await Task.sleep(for: .milliseconds(300))
            relay.inject(.endOfFile)
            locker.wait()
            let outcome = try await workers.finish(worker, limit: .seconds(90))
            #expect(!outcome.signaled && outcome.status == 0, "\(outcome.errors)")
            #expect(outcome.errors.contains(Break.endOfFile.reason), "\(outcome.errors)")
            #expect(!outcome.errors.contains("no answer"), "\(outcome.errors)")
            let runs = try server.psqlRows(database, "SELECT status FROM rederive_runs")
            #expect(runs == [["completed"]], "\(runs)")
            let totals = try server.psql(database, "SELECT sum(derived + failed), sum(unchanged), count(*) FROM \(PostgresRunCounts.runs)")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(totals == "\(count)|0|1")
        }
    }

    /// The server refuses connections long enough for the pool to back off for seconds between its
    /// attempts, and to stop taking requests (its circuit breaker): the first claim once the server
    /// takes connections again gets its records, and the claims after it are soon served by the
    /// pool again, not each by a connection of its own.
    @Test func aClaimOnceTheServerTakesConnectionsAgainDoesNotWaitForThePool() async throws {
        let relay = try TCPRelay(to: try PostgresServer.shared().port)
        defer { relay.stop() }
        let fixture = try await PostgresClaimFixture(records: 12, port: relay.port)
        defer { fixture.store.close() }
        let store = fixture.store
        let lease = try await fixture.lease(1, lasting: .seconds(120))
        _ = try await store.startRun([fixture.plan], lease: lease)
        relay.refuse(true)
        relay.inject(.reset)
        let refused = ContinuousClock.now
        var failures = 0
        while ContinuousClock.now - refused < .seconds(20) {
            do {
                _ = try await store.claim(fixture.plan, limit: 4, byteLimit: 1 << 20, lease: lease)
                Issue.record("a claim succeeded while the server refused connections")
            } catch let error as RederiveError {
                #expect(error.isOutage, "\(error)")
                failures += 1
            }
            try await Task.sleep(for: .milliseconds(500))
        }
        #expect(failures > 0)
        relay.refuse(false)
        let claimed = try await store.claim(fixture.plan, limit: 4, byteLimit: 1 << 20, lease: lease)
        #expect(claimed.count == 4)
        // Within the pool's longest backoff, three claims in a row open no connection.
        let back = ContinuousClock.now
        var pooled = false
        while !pooled && ContinuousClock.now - back < .seconds(90) {
            let opened = relay.connectionsOpened
            for _ in 0..<3 {
                _ = try await store.claim(fixture.plan, limit: 1, byteLimit: 1 << 20, lease: lease)
            }
            pooled = relay.connectionsOpened == opened
            if !pooled { try await Task.sleep(for: .milliseconds(500)) }
        }
        #expect(pooled, "every claim still opened a connection of its own \(ContinuousClock.now - back) after the server was back")
    }

    /// A psql session, on a thread of its own, holding a lock every claim waits for, a few seconds.
    final class Locker: Sendable {
        private let done = Mutex(false)

        init(_ server: PostgresServer, _ database: String) {
            Thread.detachNewThread { [self] in
                _ = try? server.psql(database, "BEGIN; LOCK TABLE rederive_records IN EXCLUSIVE MODE; SELECT pg_sleep(4); COMMIT")
                done.withLock { $0 = true }
            }
        }

        var hasEnded: Bool { done.withLock { $0 } }

        /// Waits until the lock is let go.
        func wait() {
            while !hasEnded { usleep(50_000) }
        }
    }

    /// Takes the lock claims wait for, once it holds it.
    static func holdClaimsUp(_ server: PostgresServer, _ database: String) async throws -> Locker {
        let locker = Locker(server, database)
        try await waitUntil("the lock is held") {
            try server.psql(database, "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'rederive_records' AND l.mode = 'ExclusiveLock' AND l.granted")
                .trimmingCharacters(in: .whitespacesAndNewlines) == "1"
        }
        return locker
    }

    /// The server process of a claim waiting for the lock.
    static func waitingClaim(_ server: PostgresServer, _ database: String) async throws -> Int {
        var session: Int?
        try await waitUntil("a claim waits for the lock") {
            session = Int(try server.psql(database, """
                SELECT pid FROM pg_stat_activity WHERE application_name = 'rederive' AND wait_event_type = 'Lock' AND query LIKE 'WITH picked%' LIMIT 1
                """).trimmingCharacters(in: .whitespacesAndNewlines))
            return session != nil
        }
        return session ?? 0
    }

    static func waitUntil(_ what: String, within limit: Duration = .seconds(4), _ condition: () throws -> Bool) async throws {
        let deadline = ContinuousClock.now + limit
        while try !condition() {
            guard ContinuousClock.now < deadline else { throw ProcessError("\(what): not within \(limit)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
#endif
