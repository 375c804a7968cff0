#if PostgreSQL
import Rederive
import RederiveCodec
import RederivePostgres
import RederivePostgresTestSupport
import RoomScan
import Testing

/// A run on PostgreSQL is counted once, by the worker that starts it; workers that join it take what
/// is left of that count rather than reading every stamp row again.
@Suite("the pending count of a shared run on PostgreSQL", .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .timeLimit(.minutes(2)))
struct PostgresRunCountTests {
    @Test func aWorkerJoiningARunTakesWhatIsLeftOfItsCount() async throws {
        let fixture = try await PostgresClaimFixture(records: 5)
        let (store, pipeline, plan) = (fixture.store, fixture.pipeline, fixture.plan)
        defer { store.close() }
        let first = try await fixture.lease(1)
        let started = try await store.startRun([plan], lease: first)
        #expect(started.pending == [5])
        let claimed = try await store.claim(plan, limit: 2, byteLimit: 1 << 20, lease: first)
        let results = claimed.map { RecordResult(evaluating: $0, pipeline: pipeline, codec: .init()) }
        #expect(try await store.commit(results, plan: plan, runID: started.id, lease: first).counts.changed == 2)

        // Records written after the run started: a count now differs from what the run has left.
        let later = (5..<8).map { ("scan-\($0)", PostgresClaimFixture.emptyScan) }
        _ = try await store.importPayloads(later, into: pipeline)
        #expect(try await store.staleCount(plan) == 6)

        let second = try await fixture.lease(2)
        let joined = try await store.startRun([plan], lease: second)
        #expect(joined.id == started.id)
        #expect(joined.pending == [3])
        try await store.releaseLease(second)
        try await store.releaseLease(first)

        // Once no worker derives it, the next worker starts a run of its own and counts it.
        let third = try await fixture.lease(3)
        let next = try await store.startRun([plan], lease: third)
        #expect(next.id != started.id)
        #expect(next.pending == [6])
        try await store.releaseLease(third)
    }
}
#endif
