import Foundation
import Rederive
import Testing

/// Every store records runs with their processors, statuses and counts, records a run whose process
/// died as interrupted, rolls a run back to the values and stamps it replaced, and resets a pipeline.
@Suite("Store conformance: runs, history, rollback and reset", .timeLimit(.minutes(5)))
struct RunConformanceTests {
    @Test(arguments: StoreUnderTest.all)
    func runsAreRecordedNewestFirstWithTheirCounts(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let pipeline = ConformancePipeline().pipeline
            try await fixture.seed(pipeline, count: 3, label: { $0 == 2 ? "explode" : "s\($0)" })
            let first = try await fixture.run(pipeline)
            _ = try await fixture.store.invalidate(pipeline, processors: ["edges"], keys: nil)
            let second = try await fixture.run(pipeline)
            #expect(second.runID > first.runID)

            let runs = try await fixture.store.runs(limit: nil)
            #expect(runs.map(\.id) == [second.runID, first.runID])
            #expect(runs.map(\.status) == [.completed, .completed])
            #expect(runs.map(\.counts) == [RunCounts(unchanged: 3), RunCounts(derived: 2, failed: 1)])
            #expect(runs.allSatisfy { run in run.endedAt.map { $0 >= run.startedAt } == true })
            #expect(runs.last?.processors == [
                ProcessorVersion(pipeline: "items", name: "total", version: 1),
                ProcessorVersion(pipeline: "items", name: "edges", version: 1),
                ProcessorVersion(pipeline: "items", name: "size", version: 1),
            ])
            #expect(try await fixture.store.runs(limit: 1).map(\.id) == [second.runID])
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func aRunWhoseProcessDiedIsRecordedInterruptedWithWhatItCommitted(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let conformance = ConformancePipeline()
            let (store, plan) = (fixture.store, conformance.plan)
            let run = try await Self.runThatDied(after: 2, of: 4, fixture, conformance)

            let next = try await fixture.lease(2)
            let started = try await store.startRun([plan], lease: next)
            #expect(started.id != run.id)
            #expect(started.pending == [2])
            let interrupted = try #require(try await store.runs(limit: nil).first { $0.id == run.id })
            #expect(interrupted.status == .interrupted)
            #expect(interrupted.counts == RunCounts(derived: 2))
            #expect(interrupted.endedAt != nil)
            try await store.finishRun(started.id, status: .completed, counts: RunCounts(), lease: next)
            try await store.releaseLease(next)
            #expect(try await store.runs(limit: 1).first?.status == .completed)
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func aRunWhoseLeaseLapsedShowsInterruptedWithWhatItCommittedBeforeAnyLaterRun(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let conformance = ConformancePipeline()
            let (store, plan) = (fixture.store, conformance.plan)
            // No run starts after it.
            let run = try await Self.runThatDied(after: 2, of: 4, fixture, conformance)

            let shown = try #require(try await store.runs(limit: nil).first { $0.id == run.id })
            #expect(shown.status == .interrupted)
            #expect(shown.counts == RunCounts(derived: 2))
            #expect(shown.endedAt.map { $0 >= shown.startedAt } == true)
            #expect(try await store.runs(limit: 1).first?.status == .interrupted)

            // A later run still records it so, as it was shown.
            let next = try await fixture.lease(2)
            let started = try await store.startRun([plan], lease: next)
            let recorded = try #require(try await store.runs(limit: nil).first { $0.id == run.id })
            #expect(recorded.status == .interrupted && recorded.counts == shown.counts && recorded.endedAt == shown.endedAt)
            try await store.finishRun(started.id, status: .completed, counts: RunCounts(), lease: next)
            try await store.releaseLease(next)
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func rollbackRestoresTheValuesAndStampsARunReplaced(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let original = ConformancePipeline().pipeline
            try await fixture.seed(original, count: 3)
            let first = try await fixture.run(original)
            let scaled = ConformancePipeline(totalVersion: 2, totalScale: 10).pipeline
            // `edges` derives again to the same values: the second run changes none of them.
            _ = try await fixture.store.invalidate(original, processors: ["edges"], keys: nil)
            let second = try await fixture.run(scaled)
            #expect(second.counts == RunCounts(derived: 3))
            #expect(try await fixture.values(of: "k0", scaled)?["total"] == .real(30))

            // What a later run changed again is not rolled back over it; `edges`, which it derived to the
            // same values, is.
            let blocked = try await fixture.store.rollback(run: first.runID, pipelines: [original])
            #expect(blocked.restored.map(\.processor) == ["edges", "edges", "edges"])
            #expect(blocked.skipped.count == 6)
            #expect(blocked.skipped.allSatisfy {
                $0.reason == "run \(second.runID) changed it again; roll that run back first" && $0.key != nil
            })

            // One payload changes since: that record stays as it is.
            try await fixture.replace("k2", label: "s2", values: [1], in: scaled)
            let report = try await fixture.store.rollback(run: second.runID, pipelines: [scaled])
            #expect(report.restored.map(\.processor) == ["size", "total", "size", "total"])
            #expect(Set(report.restored.map(\.key)) == ["k0", "k1"])
            #expect(report.skipped.count == 2)
            #expect(report.skipped.allSatisfy { $0.key == "k2" && $0.reason?.contains("payload changed") == true })

            #expect(try await fixture.values(of: "k0", original)?["total"] == .real(3))
            #expect(try await fixture.values(of: "k0", original)?["size"] == .text("small"))
            // The restored stamps are of version 1: current again for the original pipeline.
            let status = try await fixture.status(original)
            #expect(status["total"]?.upToDate == 2 && status["size"]?.upToDate == 2 && status["edges"]?.upToDate == 0)
            #expect(try await fixture.status(scaled)["total"]?.stale == 3)
            // What was rolled back is gone: a second rollback restores nothing.
            let again = try await fixture.store.rollback(run: second.runID, pipelines: [scaled])
            #expect(again.restored.isEmpty)

            let unknown = await #expect(throws: RederiveError.self) {
                _ = try await fixture.store.rollback(run: second.runID + 1_000, pipelines: [scaled])
            }
            #expect(unknown?.code == .unknownName)
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func rollingBackAFirstDerivationPutsTheDefaultsBack(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let pipeline = ConformancePipeline().pipeline
            try await fixture.seed(pipeline, count: 2)
            // An empty item's size is NULL, its column's default: a first derivation still replaces it.
            _ = try await fixture.importPayloads([("empty", ConformancePipeline.item("empty", []))], pipeline)
            let run = try await fixture.run(pipeline)
            #expect(try await fixture.values(of: "empty", pipeline)?["size"] == .null)
            let report = try await fixture.store.rollback(run: run.runID, pipelines: [pipeline])
            #expect(report.restored.count == 9)
            #expect(try await fixture.status(pipeline).values.allSatisfy { $0.upToDate == 0 && $0.stale == 3 })
            let values = try #require(try await fixture.values(of: "k0", pipeline))
            #expect(values == ["total": .null, "not_a_number": .null, "negative_zero": .null, "integer_in_real": .real(0), "size": .null])
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func rollingBackAnInputMakesItsDependentsStale(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            try await fixture.seed(ConformancePipeline().pipeline, count: 2)
            _ = try await fixture.run(ConformancePipeline().pipeline)
            // Only `total` changes, not `size`: k0 3 → 3.5, k1 4 → 4.5 stay small.
            let pipeline = ConformancePipeline(totalVersion: 2, totalScale: 1.125).pipeline
            let second = try await fixture.run(pipeline)
            #expect(second.counts == RunCounts(derived: 2))

            let report = try await fixture.store.rollback(run: second.runID, pipelines: [pipeline])
            #expect(report.restored.map(\.processor) == ["total", "total"])
            let status = try await fixture.status(ConformancePipeline().pipeline)
            #expect(status["total"]?.upToDate == 2)
            #expect(status["size"]?.stale == 2, "size was derived from the values rolled back")
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func resetClearsDerivedStateAndKeepsPayloads(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let pipeline = ConformancePipeline().pipeline
            try await fixture.seed(pipeline, count: 3, label: { $0 == 0 ? "explode" : "s\($0)" })
            let run = try await fixture.run(pipeline)
            #expect(try await fixture.store.reset(pipeline) == 3)

            #expect(try await fixture.status(pipeline).values.allSatisfy { $0.upToDate == 0 && $0.failed == 0 && $0.stale == 3 })
            #expect(try await fixture.store.failures(of: pipeline, filter: FailureFilter()).isEmpty)
            #expect(try await fixture.values(of: "k1", pipeline) == [
                "total": .null, "not_a_number": .null, "negative_zero": .null, "integer_in_real": .real(0), "size": .null,
            ])
            let records = try await fixture.store.storedRecords(of: pipeline, after: nil, limit: 10)
            #expect(records.map(\.payload) == (0..<3).map { ConformancePipeline.item($0 == 0 ? "explode" : "s\($0)", [Double($0), 1, 2]) })
            // Kept values are gone: rolling the run back fails, and says why.
            let gone = await #expect(throws: RederiveError.self) {
                _ = try await fixture.store.rollback(run: run.runID, pipelines: [pipeline])
            }
            #expect(gone?.message.contains("reset cleared it") == true, "\(gone?.message ?? "")")
            #expect(try await fixture.run(pipeline).counts == RunCounts(derived: 2, failed: 1))
        }
    }

    /// A run, of `count` seeded records, whose process committed `committed` of them and died: it never
    /// finishes the run nor renews its lease, which has lapsed on return.
    static func runThatDied(
        after committed: Int, of count: Int, _ fixture: StoreFixture, _ conformance: ConformancePipeline
    ) async throws -> StartedRun {
        let (store, pipeline, plan) = (fixture.store, conformance.pipeline, conformance.plan)
        try await fixture.seed(pipeline, count: count)
        // Long enough that the lease outlives the commit and the look at the run on a loaded machine
        // (300 ms did not, running beside other suites), short enough to wait out.
        let dead = try await fixture.lease(1, lasting: .seconds(2))
        let run = try await store.startRun([plan], lease: dead)
        let claimed = try await store.claim(plan, limit: committed, byteLimit: 1 << 20, lease: dead)
        let counts = try await store.commit(ClaimConformanceTests.derive(claimed, pipeline), plan: plan, runID: run.id, lease: dead).counts
        #expect(counts == RunCounts(derived: committed))
        #expect(try await store.runs(limit: nil).first?.status == .running)
        try await Task.sleep(for: .milliseconds(2_400))
        return run
    }
}
