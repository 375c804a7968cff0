import Foundation
import Rederive
import Testing

/// Every store keeps a failure per record and processor, with its dependents' `upstream` failures,
/// leaves it alone until the payload or the version changes or a run retries it, and clears it once
/// the processor derives.
@Suite("Store conformance: failures and retry", .timeLimit(.minutes(5)))
struct FailureConformanceTests {
    @Test(arguments: StoreUnderTest.all)
    func aFailureIsKeptAndNotRetriedUntilAsked(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let conformance = ConformancePipeline()
            let pipeline = conformance.pipeline
            try await fixture.seed(pipeline, count: 3, label: { $0 == 1 ? "explode" : "s\($0)" })
            let first = try await fixture.run(pipeline)
            #expect(first.counts == RunCounts(derived: 2, failed: 1))

            let failures = try await fixture.store.failures(of: pipeline, filter: FailureFilter())
            let id = try await fixture.ids(pipeline)["k1"]
            #expect(failures.map(\.processor) == ["total", "size"])
            #expect(failures.allSatisfy { $0.recordID == id && $0.key == "k1" && $0.runID == first.runID && $0.pipeline == "items" })
            #expect(failures.first?.kind == .processor)
            #expect(failures.first?.message.contains("refusing to total an exploding item") == true)
            #expect(failures.last?.kind == .upstream)
            #expect(try await fixture.store.failures(of: pipeline, filter: FailureFilter(processors: ["size"])).map(\.processor) == ["size"])
            #expect(try await fixture.store.failures(of: pipeline, filter: FailureFilter(runID: first.runID + 1_000)).isEmpty)
            let status = try await fixture.status(pipeline)
            #expect(status["total"]?.failed == 1 && status["total"]?.stale == 0 && status["total"]?.upToDate == 2)

            // Not retried by every run.
            conformance.derivations.reset()
            let second = try await fixture.run(pipeline)
            #expect(second.pending == 0 && second.counts == RunCounts())
            #expect(conformance.derivations["total"] == 0)

            // Retried when asked, and failing again.
            #expect(try await fixture.store.pendingCount(RunPlan(pipeline: pipeline, retryFailed: true)) == 1)
            let retried = try await fixture.run(pipeline, retryFailed: true)
            #expect(retried.pending == 1 && retried.counts == RunCounts(failed: 1))
            #expect(try await fixture.store.failures(of: pipeline, filter: FailureFilter()).allSatisfy { $0.runID == retried.runID })

            // The bug fixed without a version bump: a retry derives the record and clears its failures.
            let fixed = ConformancePipeline(totalFixed: true).pipeline
            let repaired = try await fixture.run(fixed, retryFailed: true)
            #expect(repaired.counts == RunCounts(derived: 1))
            #expect(try await fixture.store.failures(of: fixed, filter: FailureFilter()).isEmpty)
            #expect(try await fixture.status(fixed).values.allSatisfy { $0.upToDate == 3 && $0.failed == 0 })
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func aFailureClearsOnceItsProcessorDerives(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let pipeline = ConformancePipeline().pipeline
            try await fixture.seed(pipeline, count: 2, label: { $0 == 1 ? "explode" : "s\($0)" })
            _ = try await fixture.run(pipeline)
            #expect(try await fixture.store.failures(of: pipeline, filter: FailureFilter()).count == 2)

            // A new payload makes the failure stale: no longer counted, and derived again.
            try await fixture.replace("k1", label: "fixed", values: [7, 8], in: pipeline)
            #expect(try await fixture.store.failures(of: pipeline, filter: FailureFilter()).isEmpty)
            #expect(try await fixture.status(pipeline)["total"].map { ($0.failed, $0.stale) } ?? (0, 0) == (0, 1))
            let summary = try await fixture.run(pipeline)
            #expect(summary.counts == RunCounts(derived: 1))
            #expect(try await fixture.store.failures(of: pipeline, filter: FailureFilter()).isEmpty)
            #expect(try await fixture.status(pipeline).values.allSatisfy { $0.upToDate == 2 && $0.failed == 0 })
            #expect(try await fixture.values(of: "k1", pipeline)?["size"] == .text("big"))
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func aVersionBumpRetriesTheProcessorsFailures(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            try await fixture.seed(ConformancePipeline().pipeline, count: 2, label: { $0 == 1 ? "explode" : "s\($0)" })
            _ = try await fixture.run(ConformancePipeline().pipeline)

            let bumped = ConformancePipeline(totalVersion: 2)
            // A failure of another version is not current.
            #expect(try await fixture.store.failures(of: bumped.pipeline, filter: FailureFilter(processors: ["total"])).isEmpty)
            #expect(try await fixture.status(bumped.pipeline)["total"]?.stale == 2)
            let summary = try await fixture.run(bumped.pipeline)
            #expect(summary.counts == RunCounts(unchanged: 1, failed: 1))
            #expect(try await fixture.store.failures(of: bumped.pipeline, filter: FailureFilter()).map(\.version) == [2, 1])
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func aDependentOfAnInputThatFailedFailsUpstreamWithoutDeriving(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            try await fixture.seed(ConformancePipeline().pipeline, count: 2, label: { $0 == 1 ? "explode" : "s\($0)" })
            _ = try await fixture.run(ConformancePipeline().pipeline)

            // `size` alone is stale; its input failed on k1, and that failure is not retried.
            let bumped = ConformancePipeline(sizeVersion: 2)
            let pending = try await fixture.store.pendingRecords(bumped.plan, after: nil, limit: 10, byteLimit: 1 << 20)
            let k1 = try await fixture.ids(bumped.pipeline)["k1"]
            #expect(pending.first { $0.recordID == k1 }?.dependencies.failures == [ConformancePipeline.total: .processor])
            let summary = try await fixture.run(bumped.pipeline)
            #expect(summary.counts == RunCounts(unchanged: 1, failed: 1))
            #expect(bumped.derivations["size"] == 1)
            let failures = try await fixture.store.failures(of: bumped.pipeline, filter: FailureFilter())
            #expect(failures.map(\.processor) == ["total", "size"])
            #expect(failures.map(\.kind) == [.processor, .upstream])
            #expect(failures.map(\.version) == [1, 2])
        }
    }
}
