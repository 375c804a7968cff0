#if PostgreSQL
import Rederive
import RederiveCodec
import RederivePostgres
import RederivePostgresTestSupport
import RoomScan
import Testing

/// The claims of a run pass over the records it already committed, reading no stamps for them, until
/// their payload is written again; the next run looks at them afresh.
@Suite("records a run committed on PostgreSQL", .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .timeLimit(.minutes(2)))
struct PostgresCommittedRunTests {
    @Test func aRunPassesOverWhatItCommittedUntilThePayloadIsWrittenAgain() async throws {
        let fixture = try await PostgresClaimFixture(records: 3)
        let (store, pipeline, plan) = (fixture.store, fixture.pipeline, fixture.plan)
        defer { store.close() }
        let first = try await fixture.lease(1)
        let runID = try await store.startRun([], lease: first).id
        let claimed = try await store.claim(plan, limit: 10, byteLimit: 1 << 20, lease: first)
        #expect(claimed.count == 3)
        let results = claimed.map { RecordResult(evaluating: $0, pipeline: pipeline, codec: .init()) }
        let counts = try await store.commit(results, plan: plan, runID: runID, lease: first).counts
        #expect(counts.changed == 3)

        // Stale again, two of them; one also gets a new payload.
        #expect(try await store.invalidate(pipeline, processors: nil, keys: ["scan-0", "scan-1"]) == 2)
        _ = try await store.importPayloads([("scan-1", Array(#"{"walls": [], "doors": [], "windows": [], "openings": [], "objects": [{}]}"#.utf8))], into: pipeline)
        let ids = Dictionary(uniqueKeysWithValues: try await store.staleRecords(plan, after: nil, limit: 10, byteLimit: 1 << 20).map { ($0.recordID, $0) })
        #expect(ids.count == 2)

        let again = try await store.claim(plan, limit: 10, byteLimit: 1 << 20, lease: first)
        #expect(again.count == 1 && again.first?.payload != claimed.first { $0.recordID == again.first?.recordID }?.payload)
        try await store.releaseLease(first)

        let second = try await fixture.lease(2)
        let nextRun = try await store.startRun([], lease: second).id
        #expect(nextRun != runID)
        let next = try await store.claim(plan, limit: 10, byteLimit: 1 << 20, lease: second)
        #expect(Set(next.map(\.recordID)) == Set(ids.keys))
        try await store.releaseLease(second)
    }
}
#endif
