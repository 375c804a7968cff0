import Foundation
import Rederive
import Testing

/// Every store holds a value as SQLite's columns hold it, and counts a record unchanged when storing
/// its new values leaves every column as it was: NaN is held as NULL, −0.0 as 0.0, an integer in a
/// REAL column as a real.
@Suite("Store conformance: commits and unchanged values", .timeLimit(.minutes(5)))
struct CommitConformanceTests {
    @Test(arguments: StoreUnderTest.all)
    func valuesAreHeldAsTheColumnsHoldThem(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let pipeline = ConformancePipeline().pipeline
            try await fixture.seed(pipeline, count: 3)
            #expect(try await fixture.values(of: "k1", pipeline) == nil)
            let summary = try await fixture.run(pipeline)
            #expect(summary.counts == RunCounts(derived: 3))

            let values = try #require(try await fixture.values(of: "k1", pipeline))
            #expect(values["total"] == .real(4))
            #expect(values["not_a_number"] == .null)
            guard case .real(let zero) = values["negative_zero"] else {
                Issue.record("negative_zero holds \(String(describing: values["negative_zero"]))")
                return
            }
            #expect(zero.bitPattern == 0.0.bitPattern, "−0.0 is held as 0.0")
            #expect(values["integer_in_real"] == .real(3_000))
            #expect(values["size"] == .text("small"))
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func aSecondDerivationOfTheSameValuesCountsEveryRecordUnchanged(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let pipeline = ConformancePipeline().pipeline
            try await fixture.seed(pipeline, count: 5)
            _ = try await fixture.run(pipeline)
            #expect(try await fixture.store.invalidate(pipeline, processors: nil, keys: nil) == 5)
            #expect(try await fixture.store.pendingCount(RunPlan(pipeline: pipeline)) == 5)

            let second = try await fixture.run(pipeline)
            #expect(second.pending == 5)
            #expect(second.counts == RunCounts(unchanged: 5))
            // Nothing changed, so nothing was kept to roll back.
            let rollback = try await fixture.store.rollback(run: second.runID, pipelines: [pipeline])
            #expect(rollback.restored.isEmpty && rollback.skipped.isEmpty)
            #expect(try await fixture.status(pipeline).values.allSatisfy { $0.upToDate == 5 })
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func aCommitStoresValuesStampsAndFailuresTogether(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let conformance = ConformancePipeline()
            let (store, pipeline, plan) = (fixture.store, conformance.pipeline, conformance.plan)
            try await fixture.seed(pipeline, count: 2, label: { $0 == 1 ? "explode" : "s\($0)" })
            let lease = try await fixture.lease(1)
            let run = try await store.startRun([plan], lease: lease)
            let claimed = try await store.claim(plan, limit: 2, byteLimit: 1 << 20, lease: lease)
            let results = ClaimConformanceTests.derive(claimed, pipeline)
            let counts = try await store.commit(results, plan: plan, runID: run.id, lease: lease).counts
            #expect(counts == RunCounts(derived: 1, failed: 1))
            try await store.finishRun(run.id, status: .completed, counts: counts, lease: lease)
            try await store.releaseLease(lease)

            let status = try await fixture.status(pipeline)
            #expect(status["total"].map { ($0.upToDate, $0.failed, $0.stale) } ?? (0, 0, 0) == (1, 1, 0))
            #expect(status["edges"].map { ($0.upToDate, $0.failed, $0.stale) } ?? (0, 0, 0) == (2, 0, 0))
            #expect(status["size"].map { ($0.upToDate, $0.failed, $0.stale) } ?? (0, 0, 0) == (1, 1, 0))
            #expect(try await fixture.values(of: "k1", pipeline)?["total"] == .null)
            #expect(try await fixture.values(of: "k1", pipeline)?["integer_in_real"] == .real(3_000))
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func aCommitWithAWrongNumberOfValuesIsRefusedWhole(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let conformance = ConformancePipeline()
            let (store, pipeline, plan) = (fixture.store, conformance.pipeline, conformance.plan)
            try await fixture.seed(pipeline, count: 2)
            let lease = try await fixture.lease(1)
            let run = try await store.startRun([plan], lease: lease)
            let claimed = try await store.claim(plan, limit: 2, byteLimit: 1 << 20, lease: lease)
            var results = ClaimConformanceTests.derive(claimed, pipeline)
            let wrong = results[1]
            results[1] = RecordResult(
                recordID: wrong.recordID, generation: wrong.generation, payloadDigest: wrong.payloadDigest,
                outcomes: [(ConformancePipeline.edges, .derived([.real(1)]))]
            )
            let refusal = await #expect(throws: RederiveError.self) {
                _ = try await store.commit(results, plan: plan, runID: run.id, lease: lease)
            }
            #expect(refusal?.code == .invalidRegistration)
            #expect(try await fixture.status(pipeline).values.allSatisfy { $0.upToDate == 0 })
            try await store.releaseLease(lease)
        }
    }
}
