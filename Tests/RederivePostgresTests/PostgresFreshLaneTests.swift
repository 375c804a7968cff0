#if PostgreSQL
import Rederive
import RederivePostgres
import RederivePostgresTestSupport
import Synchronization
import Testing

/// A watcher's fresh lane on PostgreSQL: its claims go on from where they reached, so that a look
/// after a change costs the records written since, and look from the first record again only when
/// the watcher restarts them for a sweep; and a look that finds nothing free returns at once, without
/// waiting for what another watcher holds.
@Suite("the fresh lane's claims on PostgreSQL", .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .timeLimit(.minutes(2)))
struct PostgresFreshLaneTests {
    /// Three records derived by a run, so that none is fresh.
    static func derivedFixture() async throws -> PostgresClaimFixture {
        let fixture = try await PostgresClaimFixture(records: 3)
        let summary = try await Runner(store: fixture.store, pipelines: [fixture.pipeline]).run()
        #expect(summary.counts.changed == 3)
        return fixture
    }

    @Test func aFreshClaimGoesOnFromWhereItReachedUntilRestarted() async throws {
        let fixture = try await Self.derivedFixture()
        let (store, pipeline) = (fixture.store, fixture.pipeline)
        defer { store.close() }
        let fresh = fixture.plan.restricted(to: .fresh)
        let lease = try await fixture.lease(1)
        _ = try await store.importPayloads([("scan-new", PostgresClaimFixture.emptyScan)], into: pipeline)
        let new = try await store.claim(fresh, limit: 10, byteLimit: 1 << 20, lease: lease)
        #expect(new.count == 1)
        // Written behind where the lane reached: the next look does not pass over the table for it.
        #expect(try await store.invalidate(pipeline, processors: nil, keys: ["scan-0"]) == 1)
        let behind = try await store.claim(fresh, limit: 10, byteLimit: 1 << 20, lease: lease)
        #expect(behind.isEmpty)
        // A sweep restarts the lane's claims: the record behind is found.
        store.restartClaims(fresh, lease: lease)
        let swept = try await store.claim(fresh, limit: 10, byteLimit: 1 << 20, lease: lease)
        #expect(swept.count == 1 && swept.first?.recordID != new.first?.recordID)
        try await store.releaseLease(lease)
    }

    @Test func aPlanOfSomeIdsClaimsOnlyThose() async throws {
        let fixture = try await PostgresClaimFixture(records: 6)
        let store = fixture.store
        defer { store.close() }
        let last = try #require(try await store.lastRecordID(of: fixture.pipeline))
        // A watcher draining a never-derived table up to the third-to-last id, with its fresh lane after it.
        let drained = fixture.plan.restricted(to: .all, recordIDs: Int64.min...(last - 2))
        let after = fixture.plan.restricted(to: .fresh, recordIDs: (last - 1)...Int64.max)
        let lease = try await fixture.lease(1)
        let ahead = try await store.claim(after, limit: 10, byteLimit: 1 << 20, lease: lease)
        let drain = try await store.claim(drained, limit: 10, byteLimit: 1 << 20, lease: lease)
        #expect(ahead.map(\.recordID).sorted() == [last - 1, last])
        #expect(drain.count == 4 && drain.allSatisfy { $0.recordID <= last - 2 })
        try await store.releaseLease(lease)
    }

    @Test func aFreshClaimThatFindsNothingFreeDoesNotWaitForAnotherWatchersRecords() async throws {
        let fixture = try await Self.derivedFixture()
        let (store, pipeline) = (fixture.store, fixture.pipeline)
        defer { store.close() }
        let fresh = fixture.plan.restricted(to: .fresh)
        _ = try await store.importPayloads(
            [("scan-new-0", PostgresClaimFixture.emptyScan), ("scan-new-1", PostgresClaimFixture.emptyScan)], into: pipeline
        )
        let holder = try await fixture.lease(1)
        let held = try await store.claim(fresh, limit: 10, byteLimit: 1 << 20, lease: holder)
        #expect(held.count == 2)
        let other = try await fixture.lease(2)
        let returned = Returned()
        let looking = Task {
            defer { returned.set() }
            return try await store.claim(fresh, limit: 10, byteLimit: 1 << 20, lease: other)
        }
        // A claim that waited for the holder's records would take them once it leaves: it leaves only
        // once the look returned, or after a minute, so that a waiting claim ends and fails the test.
        for _ in 0..<3000 where !returned.isSet {
            try await Task.sleep(for: .milliseconds(20))
        }
        try await store.releaseLease(holder)
        let found = try await looking.value
        #expect(found.isEmpty, "\(found.map(\.recordID)) of \(held.map(\.recordID))")
        try await store.releaseLease(other)
    }
}

/// Whether a task has returned, read without waiting for it.
private final class Returned: Sendable {
    private let state = Mutex(false)

    func set() {
        state.withLock { $0 = true }
    }

    var isSet: Bool { state.withLock { $0 } }
}
#endif
