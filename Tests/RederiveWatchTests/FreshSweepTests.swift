import GRDB
import Rederive
@testable import RederiveSQLite
import RederiveTestSupport
import Synchronization
import Testing

/// Where a watcher's fresh lane claims from after a sweep on SQLite: past every record when the index
/// counts show none fresh, and from the first record when one behind is.
@Suite("SQLite: the fresh lane's sweep")
struct FreshSweepTests {
    /// A derived database of `count` records (one failing for `total`), its store, a lease and the
    /// fresh lane's plan and cursor key.
    private struct Derived {
        let path: String
        let store: SQLiteStore
        let lease: WorkerLease
        let plan: RunPlan
        let ids: [Int64]

        var cursor: Int64? {
            store.claimCursors.withLock { $0[ClaimCursorKey(token: lease.token, pipeline: plan.pipeline.name, lane: .fresh)] }
        }

        func sweep(lowestInFlight: Int64? = nil, plan: RunPlan? = nil) async throws {
            try await store.sweepFreshClaims(plan ?? self.plan, lease: lease, lowestInFlight: lowestInFlight)
        }

        func claim() async throws -> [Int64] {
            try await store.claim(plan, limit: 1_000, byteLimit: .max, lease: lease).map(\.recordID)
        }
    }

    private func derived(_ count: Int, at path: String) async throws -> Derived {
        let test = TestPipeline()
        try await prepare(test.pipeline, at: path)
        try insertRecords(samples(count - 1) + [("boom", sampleJSON("explode", [1]))], into: path)
        _ = try await run(test.pipeline, at: path)
        let store = try SQLiteStore(path: path)
        guard case .acquired(let lease) = try await store.acquireLease(for: .current, duration: .seconds(600)) else {
            throw RederiveError(.database, "the lease was not free")
        }
        let ids = try await appConnection(path).read { db in try Int64.fetchAll(db, sql: "SELECT id FROM items ORDER BY id") }
        return Derived(path: path, store: store, lease: lease, plan: RunPlan(pipeline: test.pipeline, lane: .fresh), ids: ids)
    }

    @Test func theFirstSweepWithNothingFreshStartsAfterTheLastRecord() async throws {
        try await withTemporaryDatabase { path in
            let derived = try await derived(30, at: path)
            try await derived.sweep()
            // A failure at the processor's version is not fresh: the counts leave it behind too.
            #expect(derived.cursor == derived.ids.last)
            #expect(try await derived.claim().isEmpty)
            // Records written since are claimed from there.
            try insertRecords([("new", sampleJSON("new", [1]))], into: path)
            let claimed = try await derived.claim()
            #expect(claimed.count == 1 && claimed[0] > derived.ids.last!)
        }
    }

    @Test func aRecordRewrittenOrInvalidatedBehindIsFoundFromTheFirstRecord() async throws {
        try await withTemporaryDatabase { path in
            let derived = try await derived(30, at: path)
            try await derived.sweep()
            try replacePayload(key: "k3", json: sampleJSON("again", [3]), in: path)
            try await derived.sweep()
            #expect(derived.cursor == nil)
            #expect(try await derived.claim() == [derived.ids[3]])

            let other = try SQLiteStore(path: path)
            #expect(try await other.invalidate(derived.plan.pipeline, processors: ["stats"], keys: ["k7"]) == 1)
            try await derived.sweep()
            #expect(derived.cursor == nil)
            // k3 was claimed and never committed: still fresh, and claimed again by a sweep.
            #expect(try await derived.claim() == [derived.ids[3], derived.ids[7]])
        }
    }

    @Test func aSweepGoesBackToJustBeforeTheLowestRecordInFlight() async throws {
        try await withTemporaryDatabase { path in
            let derived = try await derived(30, at: path)
            try insertRecords([("new1", sampleJSON("n1", [1])), ("new2", sampleJSON("n2", [2]))], into: path)
            try await derived.sweep()
            // The two new records are fresh: the sweep starts from the first record, and claims them.
            #expect(derived.cursor == nil)
            let claimed = try await derived.claim()
            #expect(claimed.count == 2)
            // In flight, not committed: counted fresh, so the sweep stops just before the lowest.
            try await derived.sweep(lowestInFlight: claimed[0])
            #expect(derived.cursor == claimed[0] - 1)
        }
    }

    @Test func retriedFailuresAreFresh() async throws {
        try await withTemporaryDatabase { path in
            let derived = try await derived(10, at: path)
            try await derived.sweep()
            #expect(derived.cursor == derived.ids.last)
            // Retried, the failing record is fresh: the sweep starts from the first record.
            try await derived.sweep(plan: RunPlan(pipeline: derived.plan.pipeline, retryFailed: true, lane: .fresh))
            #expect(derived.cursor == nil)
        }
    }
}
