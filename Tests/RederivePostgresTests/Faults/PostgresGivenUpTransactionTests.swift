#if PostgreSQL
import Rederive
import RederiveCodec
import RederivePostgres
import RederivePostgresTestSupport
import Synchronization
import Testing

/// Transactions the store gives up on, cut off from the server by a relay in this process
/// (``TCPRelay``): a commit that gets no answer before COMMIT was sent ends by its deadline as an
/// outage, never as committed or failed, and transactions given up on leave the connection pool usable.
@Suite("PostgreSQL transactions given up on", .serialized, .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .timeLimit(.minutes(4)))
struct PostgresGivenUpTransactionTests {
    @Test func aCommitCutOffBeforeItsCommitIsAnOutageAndItsRecordsAreTakenOverOnceItsLeaseLapses() async throws {
        let relay = try TCPRelay(to: try PostgresServer.shared().port)
        defer { relay.stop() }
        let fixture = try await PostgresClaimFixture(records: 12, port: relay.port)
        defer { fixture.store.close() }
        let (store, plan, pipeline) = (fixture.store, fixture.plan, fixture.pipeline)
        let lease = try await fixture.lease(1, lasting: .seconds(2))
        let run = try await store.startRun([plan], lease: lease)
        let claimed = try await store.claim(plan, limit: 8, byteLimit: 1 << 20, lease: lease)
        #expect(claimed.count == 8)
        let results = claimed.map { RecordResult(evaluating: $0, pipeline: pipeline, codec: .init()) }

        relay.cut()
        let started = ContinuousClock.now
        let commit = Attempt { try await store.commit(results, plan: plan, runID: run.id, lease: lease) }
        let outcome = await commit.outcome(within: .seconds(60))
        let waited = ContinuousClock.now - started
        guard let outcome else {
            Issue.record("the commit cut off from the server still waits after 60 s")
            relay.reconnect()
            _ = await commit.outcome(within: .seconds(60))
            return
        }
        // Given up by its deadline (10 s for a lease of 2 s) before COMMIT was sent: an outage, which the
        // run waits out under the same lease, never a commit counted or failed.
        #expect(waited < .seconds(30), "\(waited)")
        switch outcome {
        case .success(let counts): Issue.record("a commit cut off from the server counted \(counts)")
        case .failure(let error): #expect((error as? RederiveError)?.isOutage == true, "\(error)")
        }
        // While cut off, nothing is claimed, committed or renewed: each fails as the outage it is.
        await #expect(throws: RederiveError.self) { try await store.renewLease(lease) }
        let claim = await #expect(throws: RederiveError.self) { _ = try await store.claim(plan, limit: 4, byteLimit: 1 << 20, lease: lease) }
        #expect(claim?.isOutage == true)
        let again = await #expect(throws: RederiveError.self) { _ = try await store.commit(results, plan: plan, runID: run.id, lease: lease) }
        #expect(again?.isOutage == true)

        relay.reconnect()
        #expect(try await store.status(of: pipeline).allSatisfy { $0.stale == 12 }, "the given-up commit stored something")
        // Once the given-up lease expired, another takes its records over, and every record is derived once.
        let taker = try await fixture.lease(2)
        let takerRun = try await store.startRun([plan], lease: taker)
        var taken: [PendingRecord] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while taken.count < 12, ContinuousClock.now < deadline {
            taken += try await store.claim(plan, limit: 12, byteLimit: 1 << 20, lease: taker)
        }
        #expect(Set(taken.map(\.recordID)).count == 12 && taken.count == 12)
        let counts = try await store.commit(
            taken.map { RecordResult(evaluating: $0, pipeline: pipeline, codec: .init()) }, plan: plan, runID: takerRun.id, lease: taker
        ).counts
        #expect(counts.changed + counts.failed == 12 && counts.skipped == 0, "\(counts)")
        #expect(try await store.status(of: pipeline).allSatisfy { $0.stale == 0 })
        try await store.finishRun(takerRun.id, status: .completed, counts: counts, lease: taker)
        try await store.releaseLease(taker)
    }

    /// More transactions are given up on than the pool has connections: each gives its connection
    /// back closed, and the pool serves the next transactions.
    @Test func transactionsGivenUpOnLeaveThePoolUsable() async throws {
        let relay = try TCPRelay(to: try PostgresServer.shared().port)
        defer { relay.stop() }
        let fixture = try await PostgresClaimFixture(records: 4, port: relay.port)
        defer { fixture.store.close() }
        let store = fixture.store
        // A renewal is given up on after the lease's duration.
        let lease = try await fixture.lease(1, lasting: .seconds(1))
        // Renewals of a lease of 30 s wait that long for the server: the connections they open
        // again after each cut may take longer than a second on a loaded machine.
        let patient = try await fixture.lease(2, lasting: .seconds(30))
        let concurrent = 8
        var givenUp = 0
        for _ in 1...4 {
            // Connections in the pool, idle, for the renewals cut off below to take.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<concurrent { group.addTask { try await Self.renew(patient, on: store) } }
                try await group.waitForAll()
            }
            relay.cut()
            let failures = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<concurrent {
                    group.addTask { (try? await store.renewLease(lease)) == nil }
                }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            givenUp += failures
            relay.reconnect()
        }
        #expect(givenUp == 4 * concurrent)
        // More given up than the pool's 24 connections: were they kept, these would wait for ever.
        let renewals = Attempt {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<24 { group.addTask { try await Self.renew(patient, on: store) } }
                try await group.waitForAll()
            }
        }
        let outcome = await renewals.outcome(within: .seconds(60))
        #expect(outcome != nil, "renewals still wait after 60 s")
        if case .failure(let error)? = outcome { Issue.record("\(error)") }
    }

    /// Renews `lease` as a heartbeat does: an idle connection the relay closed at a cut may still be
    /// in the pool until the pool sees it closed, and a renewal on it fails as an outage, tried again.
    static func renew(_ lease: WorkerLease, on store: PostgresStore) async throws {
        for attempt in 1... {
            do {
                return try await store.renewLease(lease)
            } catch let error as RederiveError where error.isOutage && attempt < 5 {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }
}

/// Work run in a task of its own, whose outcome a test waits for no longer than it chooses.
private final class Attempt<T: Sendable>: Sendable {
    private let result = Mutex<Result<T, any Error>?>(nil)

    init(_ body: @escaping @Sendable () async throws -> T) {
        Task { [self] in
            let outcome: Result<T, any Error>
            do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
        }
    }

    /// The outcome, once there; nil if it is not there after `limit`.
    func outcome(within limit: Duration) async -> Result<T, any Error>? {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let outcome = result.withLock({ $0 }) { return outcome }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return result.withLock { $0 }
    }
}
#endif
