import Foundation
import Rederive
import Testing

/// Every store applies ``RollbackRules``: the kept values are counted in runs that changed values, a
/// rollback whose values are gone fails and says why, a run in progress is neither rolled back nor
/// reset beside, and only a later run that changed a record blocks its rollback.
@Suite("Store conformance: rollback rules", .timeLimit(.minutes(5)))
struct RollbackRuleConformanceTests {
    @Test(arguments: StoreUnderTest.all)
    func runsThatFindNothingStaleUseUpNoneOfTheKeptValues(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let pipeline = ConformancePipeline().pipeline
            try await fixture.seed(pipeline, count: 3)
            let first = try await fixture.run(pipeline)
            // More runs with nothing to do than the window holds, as cron or a deploy script makes them.
            for _ in 0..<(RollbackRules.defaultKeptRuns + 1) {
                #expect(try await fixture.run(pipeline).counts == RunCounts())
            }
            let report = try await fixture.store.rollback(run: first.runID, pipelines: [pipeline])
            #expect(report.restored.count == 9 && report.skipped.isEmpty, "\(report)")
            #expect(try await fixture.status(pipeline).values.allSatisfy { $0.upToDate == 0 })
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func aRollbackWhoseValuesAreGoneFailsAndSaysWhy(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            try await fixture.seed(ConformancePipeline().pipeline, count: 2)
            let first = try await fixture.run(ConformancePipeline().pipeline)
            // As many later runs change values as the window holds: each scales `total` anew.
            var last = first
            for index in 1...RollbackRules.defaultKeptRuns {
                last = try await fixture.run(ConformancePipeline(totalVersion: index + 1, totalScale: Double(index + 1)).pipeline)
                #expect(last.counts.derived == 2)
            }
            let newest = ConformancePipeline(totalVersion: RollbackRules.defaultKeptRuns + 1, totalScale: Double(RollbackRules.defaultKeptRuns + 1)).pipeline

            let forgotten = await #expect(throws: RederiveError.self) {
                _ = try await fixture.store.rollback(run: first.runID, pipelines: [newest])
            }
            #expect(forgotten?.message.contains("run \(first.runID) ") == true, "\(forgotten?.message ?? "")")
            #expect(forgotten?.message.contains("no longer kept") == true, "\(forgotten?.message ?? "")")

            let report = try await fixture.store.rollback(run: last.runID, pipelines: [newest])
            #expect(report.restored.count == 2 && report.skipped.isEmpty, "\(report)")
            let again = await #expect(throws: RederiveError.self) {
                _ = try await fixture.store.rollback(run: last.runID, pipelines: [newest])
            }
            #expect(again?.message.contains("rolled back already") == true, "\(again?.message ?? "")")
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func aRunInProgressIsNeitherRolledBackNorResetBeside(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let conformance = ConformancePipeline()
            let (store, pipeline, plan) = (fixture.store, conformance.pipeline, conformance.plan)
            try await fixture.seed(pipeline, count: 4)
            let earlier = try await fixture.run(pipeline)
            _ = try await store.invalidate(pipeline, processors: nil, keys: nil)
            // A run that has committed part of its work, and goes on.
            let lease = try await fixture.lease(7)
            let run = try await store.startRun([plan], lease: lease)
            let claimed = try await store.claim(plan, limit: 2, byteLimit: 1 << 20, lease: lease)
            _ = try await store.commit(ClaimConformanceTests.derive(claimed, pipeline), plan: plan, runID: run.id, lease: lease)

            let own = await #expect(throws: RederiveError.self) {
                _ = try await store.rollback(run: run.id, pipelines: [pipeline])
            }
            #expect(own?.message.contains("run \(run.id) is still in progress") == true, "\(own?.message ?? "")")
            let beside = await #expect(throws: RederiveError.self) {
                _ = try await store.rollback(run: earlier.runID, pipelines: [pipeline])
            }
            #expect(beside?.message.contains("while run \(run.id) is in progress") == true, "\(beside?.message ?? "")")
            let reset = await #expect(throws: RederiveError.self) {
                _ = try await store.reset(pipeline)
            }
            #expect(reset?.message.contains("while run \(run.id) is in progress") == true, "\(reset?.message ?? "")")
            #expect(try await fixture.status(pipeline)["total"]?.upToDate == 2, "nothing was rolled back or reset")

            try await store.finishRun(run.id, status: .completed, counts: RunCounts(), lease: lease)
            try await store.releaseLease(lease)
            #expect(try await store.reset(pipeline) == 4)
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func aLaterRunThatDerivedTheSameValuesDoesNotBlockARollback(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let pipeline = ConformancePipeline().pipeline
            try await fixture.seed(pipeline, count: 3)
            let first = try await fixture.run(pipeline)
            // As the demo does: one processor derives again, to the values it had.
            _ = try await fixture.store.invalidate(pipeline, processors: ["edges"], keys: nil)
            let second = try await fixture.run(pipeline)
            #expect(second.counts == RunCounts(unchanged: 3))

            let report = try await fixture.store.rollback(run: first.runID, pipelines: [pipeline])
            #expect(report.restored.count == 9 && report.skipped.isEmpty, "\(report.skipped.map { $0.reason ?? "" })")
            #expect(try await fixture.status(pipeline).values.allSatisfy { $0.upToDate == 0 })
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func aRecordALaterRunChangedNamesTheNewestSuchRunToRollBackFirst(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            try await fixture.seed(ConformancePipeline().pipeline, count: 1)
            let first = try await fixture.run(ConformancePipeline().pipeline)
            let second = try await fixture.run(ConformancePipeline(totalVersion: 2, totalScale: 2).pipeline)
            let third = ConformancePipeline(totalVersion: 3, totalScale: 3).pipeline
            let last = try await fixture.run(third)

            let blocked = try await fixture.store.rollback(run: first.runID, pipelines: [third])
            #expect(blocked.skipped.map(\.processor) == ["total"])
            #expect(blocked.skipped.first?.reason == "run \(last.runID) changed it again; roll that run back first")
            // Following the advice leads back to the first run.
            _ = try await fixture.store.rollback(run: last.runID, pipelines: [third])
            let middle = try await fixture.store.rollback(run: second.runID, pipelines: [third])
            #expect(middle.restored.map(\.processor) == ["total"], "\(middle)")
            let report = try await fixture.store.rollback(run: first.runID, pipelines: [third])
            #expect(report.restored.map(\.processor) == ["total"] && report.skipped.isEmpty, "\(report)")
            #expect(try await fixture.values(of: "k0", ConformancePipeline().pipeline)?["total"] == .null)
        }
    }
}
