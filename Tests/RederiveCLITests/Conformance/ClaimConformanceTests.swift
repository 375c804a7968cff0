import Foundation
import Rederive
import RederiveCodec
import Testing

/// Every store hands each pending record out once, fences commits by the lease and by the record's
/// payload generation, and lets a lease that expired be taken over.
@Suite("Store conformance: claims, leases and fencing", .timeLimit(.minutes(5)))
struct ClaimConformanceTests {
    /// Derives claimed records as a runner's worker does.
    static func derive(_ records: [PendingRecord], _ pipeline: Pipeline) -> [RecordResult] {
        records.map { RecordResult(evaluating: $0, pipeline: pipeline, codec: PayloadCodec()) }
    }

    @Test(arguments: StoreUnderTest.all)
    func aLeaseClaimsEachPendingRecordOnce(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let conformance = ConformancePipeline()
            let (store, pipeline, plan) = (fixture.store, conformance.pipeline, conformance.plan)
            try await fixture.seed(pipeline, count: 7)
            let lease = try await fixture.lease(1)
            let run = try await store.startRun([plan], lease: lease)
            #expect(run.pending == [7])

            var claimed: [Int64] = []
            while true {
                let batch = try await store.claim(plan, limit: 3, byteLimit: 1 << 20, lease: lease)
                if batch.isEmpty { break }
                #expect(batch.count <= 3)
                #expect(batch.allSatisfy { $0.staleProcessors == plan.selection && $0.payloadRead && $0.payload != nil })
                claimed += batch.map(\.recordID)
                #expect(claimed.count <= 7, "a record was handed out twice: \(claimed)")
                if claimed.count > 7 { break }
            }
            #expect(claimed.sorted() == Array(try await fixture.ids(pipeline).values).sorted())
            #expect(Set(claimed).count == claimed.count)
            try await store.finishRun(run.id, status: .completed, counts: RunCounts(), lease: lease)
            try await store.releaseLease(lease)
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func aClaimEndsOnceItsPayloadsHoldTheByteLimit(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let conformance = ConformancePipeline()
            let (store, pipeline, plan) = (fixture.store, conformance.pipeline, conformance.plan)
            try await fixture.seed(pipeline, count: 4)
            let lease = try await fixture.lease(1)
            let run = try await store.startRun([plan], lease: lease)
            // Every payload is larger than the limit: one record a claim, never none.
            let first = try await store.claim(plan, limit: 4, byteLimit: 1, lease: lease)
            #expect(first.count == 1)
            let rest = try await store.claim(plan, limit: 4, byteLimit: 1 << 20, lease: lease)
            #expect(rest.count == 3)
            #expect(Set(first.map(\.recordID)).isDisjoint(with: rest.map(\.recordID)))
            try await store.finishRun(run.id, status: .completed, counts: RunCounts(), lease: lease)
            try await store.releaseLease(lease)
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func aSecondLeaseIsRefusedOrClaimsOtherRecords(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let conformance = ConformancePipeline()
            let (store, pipeline, plan) = (fixture.store, conformance.pipeline, conformance.plan)
            try await fixture.seed(pipeline, count: 6)
            let first = try await fixture.lease(1)
            let run = try await store.startRun([plan], lease: first)
            let held = try await store.claim(plan, limit: 3, byteLimit: 1 << 20, lease: first)
            #expect(held.count == 3)
            let committed = try await store.commit(Self.derive([held[0]], pipeline), plan: plan, runID: run.id, lease: first).counts
            #expect(committed == RunCounts(derived: 1))
            let second = try await store.acquireLease(for: WorkerIdentity(host: "conformance", processID: 2), duration: .seconds(30))
            switch second {
            case .held(let holder):
                // One process derives at a time: the first lease is named as the holder.
                #expect(!fixture.sharesDerivation)
                #expect(holder.worker.contains("pid 1"))
                #expect(holder.expiresIn > 0)
            case .acquired(let lease):
                #expect(fixture.sharesDerivation)
                // It joins the run the first lease derives, with what is left of its count.
                let joined = try await store.startRun([plan], lease: lease)
                #expect(joined == StartedRun(id: run.id, pending: [5]))
                let others = try await store.claim(plan, limit: 6, byteLimit: 1 << 20, lease: lease)
                #expect(others.count == 3)
                #expect(Set(others.map(\.recordID)).isDisjoint(with: held.map(\.recordID)))
                // The run ends when its last live lease leaves it.
                try await store.finishRun(run.id, status: .completed, counts: RunCounts(), lease: lease)
                #expect(try await store.runs(limit: 1).first?.status == .running)
                try await store.releaseLease(lease)
            }
            try await store.finishRun(run.id, status: .completed, counts: committed, lease: first)
            #expect(try await store.runs(limit: 1).first.map { ($0.id, $0.status) } ?? (0, .running) == (run.id, .completed))
            try await store.releaseLease(first)
        }
    }

    /// Right after its lease was reaped, before another lease claimed its records, a commit stores nothing.
    @Test(arguments: StoreUnderTest.all)
    func aCommitUnderALeaseTakenOverThrowsAndStoresNothing(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let conformance = ConformancePipeline()
            let (store, pipeline, plan) = (fixture.store, conformance.pipeline, conformance.plan)
            try await fixture.seed(pipeline, count: 3)
            let lost = try await fixture.lease(1, lasting: .milliseconds(300))
            let run = try await store.startRun([plan], lease: lost)
            let claimed = try await store.claim(plan, limit: 3, byteLimit: 1 << 20, lease: lost)
            #expect(claimed.count == 3)
            let results = Self.derive(claimed, pipeline)
            try await Task.sleep(for: .milliseconds(700))

            // Another process takes over once the lease expired; it reaps the expired one.
            let taker = try await fixture.lease(2)
            let fenced = await #expect(throws: RederiveError.self) {
                _ = try await store.commit(results, plan: plan, runID: run.id, lease: lost)
            }
            #expect(fenced?.code == .leaseLost)
            #expect(try await fixture.status(pipeline)["total"]?.upToDate == 0)
            let renewal = await #expect(throws: RederiveError.self) { try await store.renewLease(lost) }
            #expect(renewal?.code == .leaseLost)

            // The records the lost lease held are the taker's to derive.
            let takerRun = try await store.startRun([plan], lease: taker)
            var taken: [PendingRecord] = []
            while true {
                let batch = try await store.claim(plan, limit: 3, byteLimit: 1 << 20, lease: taker)
                if batch.isEmpty { break }
                taken += batch
            }
            #expect(Set(taken.map(\.recordID)) == Set(claimed.map(\.recordID)))
            let counts = try await store.commit(Self.derive(taken, pipeline), plan: plan, runID: takerRun.id, lease: taker).counts
            #expect(counts == RunCounts(derived: 3))
            #expect(try await fixture.status(pipeline)["total"]?.upToDate == 3)
            try await store.finishRun(takerRun.id, status: .completed, counts: counts, lease: taker)
            try await store.releaseLease(taker)
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func anExpiredLeaseNobodyTookOverStillCommits(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let conformance = ConformancePipeline()
            let (store, pipeline, plan) = (fixture.store, conformance.pipeline, conformance.plan)
            try await fixture.seed(pipeline, count: 2)
            let lease = try await fixture.lease(1, lasting: .milliseconds(300))
            let run = try await store.startRun([plan], lease: lease)
            let claimed = try await store.claim(plan, limit: 2, byteLimit: 1 << 20, lease: lease)
            try await Task.sleep(for: .milliseconds(700))
            let counts = try await store.commit(Self.derive(claimed, pipeline), plan: plan, runID: run.id, lease: lease).counts
            #expect(counts == RunCounts(derived: 2))
            #expect(try await fixture.status(pipeline)["total"]?.upToDate == 2)
            try await store.renewLease(lease)
            try await store.finishRun(run.id, status: .completed, counts: counts, lease: lease)
            try await store.releaseLease(lease)
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func aResultReadBeforeItsPayloadChangedOrItsRecordWasDeletedIsSkipped(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let conformance = ConformancePipeline()
            let (store, pipeline, plan) = (fixture.store, conformance.pipeline, conformance.plan)
            try await fixture.seed(pipeline, count: 3)
            let lease = try await fixture.lease(1)
            let run = try await store.startRun([plan], lease: lease)
            let claimed = try await store.claim(plan, limit: 3, byteLimit: 1 << 20, lease: lease)
            #expect(claimed.count == 3)
            let ids = try await fixture.ids(pipeline)
            try await fixture.replace("k0", label: "changed", values: [50], in: pipeline)
            try await fixture.deleteRecord("k1", pipeline)

            let counts = try await store.commit(Self.derive(claimed, pipeline), plan: plan, runID: run.id, lease: lease).counts
            #expect(counts == RunCounts(derived: 1, skipped: 2))
            let status = try await fixture.status(pipeline)
            #expect(status["total"]?.records == 2)
            #expect(status["total"]?.upToDate == 1)
            #expect(try await store.pendingCount(plan) == 1)
            let pending = try await store.pendingRecords(plan, after: nil, limit: 10, byteLimit: 1 << 20)
            #expect(pending.map(\.recordID) == [ids["k0"]])
            #expect(pending.first?.payload == ConformancePipeline.item("changed", [50]))
            try await store.finishRun(run.id, status: .completed, counts: counts, lease: lease)
            try await store.releaseLease(lease)
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func aRunDoesNotClaimAgainWhatItCommitted(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let conformance = ConformancePipeline()
            let pipeline = conformance.pipeline
            let plan = RunPlan(pipeline: pipeline, retryFailed: true)
            try await fixture.seed(pipeline, count: 2, label: { $0 == 1 ? "explode" : "s\($0)" })
            let first = try await fixture.lease(1)
            let run = try await fixture.store.startRun([plan], lease: first)
            let claimed = try await fixture.store.claim(plan, limit: 10, byteLimit: 1 << 20, lease: first)
            let counts = try await fixture.store.commit(Self.derive(claimed, pipeline), plan: plan, runID: run.id, lease: first).counts
            #expect(counts == RunCounts(derived: 1, failed: 1))
            // A failure retried is stale still, but this run is done with it.
            #expect(try await fixture.store.pendingCount(plan) == 1)
            #expect(try await fixture.store.claim(plan, limit: 10, byteLimit: 1 << 20, lease: first).isEmpty)
            try await fixture.store.finishRun(run.id, status: .completed, counts: counts, lease: first)
            try await fixture.store.releaseLease(first)

            let second = try await fixture.lease(2)
            let next = try await fixture.store.startRun([plan], lease: second)
            #expect(next.pending == [1])
            let again = try await fixture.store.claim(plan, limit: 10, byteLimit: 1 << 20, lease: second)
            #expect(again.map(\.recordID) == [try await fixture.ids(pipeline)["k1"]])
            try await fixture.store.releaseLease(second)
        }
    }
}
