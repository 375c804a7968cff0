#if PostgreSQL
import Rederive
@testable import RederivePostgres
import RederivePostgresTestSupport
import RoomScan
import Synchronization
import Testing

/// A worker that finds nothing free while others still hold records waits for those records alone:
/// polling them costs the server what the others hold, where another pass through the ids would cost
/// it the whole table every poll.
@Suite("waiting for other workers' claims on PostgreSQL", .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .timeLimit(.minutes(2)))
struct PostgresClaimWaitTests {
    @Test func aWorkerWithNothingFreeWatchesWhatOthersHoldAndTakesItWhenFreed() async throws {
        let fixture = try await PostgresClaimFixture(records: 4)
        let (store, pipeline, plan) = (fixture.store, fixture.pipeline, fixture.plan)
        defer { store.close() }
        let holder = try await fixture.lease(1)
        let held = try await store.claim(plan, limit: 2, byteLimit: 1 << 20, lease: holder)
        // The waiter looks again every 0.5 s.
        let waiter = try await fixture.lease(2)
        let rest = try await store.claim(plan, limit: 10, byteLimit: 1 << 20, lease: waiter)
        #expect(held.count == 2 && rest.count == 2)

        let waiting = Task { try await store.claim(plan, limit: 10, byteLimit: 1 << 20, lease: waiter) }
        let key = ClaimPositionKey(token: waiter.token, pipeline: pipeline.name)
        var watched: [Int64]?
        for _ in 0..<200 where watched == nil {
            if case .watching(let ids)? = store.claimPositions.withLock({ $0[key] }) { watched = ids }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(watched.map(Set.init) == Set(held.map(\.recordID)))
        // A record that turns stale now is none of those: it is the next run's, not polled for.
        _ = try await store.importPayloads([("scan-late", PostgresClaimFixture.emptyScan)], into: pipeline)
        try await Task.sleep(for: .milliseconds(1200))
        try await store.releaseLease(holder)
        let taken = try await waiting.value
        #expect(taken.map(\.recordID) == held.map(\.recordID))
        try await store.releaseLease(waiter)
    }
}
#endif
