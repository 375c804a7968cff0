import Foundation
import Rederive
import Synchronization
import Testing

/// Every store keeps pauses and cancels, and a runner on it honours them: a pause holds its claims
/// and commits what it claimed, a resume lets it go on with its counts, a cancel ends it as
/// cancelled with what it committed, which a rollback undoes.
@Suite("Store conformance: pause, resume and cancel", .timeLimit(.minutes(2)))
struct RunControlConformanceTests {
    @Test(arguments: StoreUnderTest.all)
    func pausesAreKeptUntilResumedAndAPipelinesResumeLiftsItsProcessors(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let store = fixture.store
            try await store.prepare(ConformancePipeline().pipeline)
            let requester = WorkerIdentity(host: "conformance", processID: 7)
            #expect(try await store.pause(ControlScope(pipeline: "items"), by: requester))
            #expect(try await !store.pause(ControlScope(pipeline: "items"), by: requester))
            #expect(try await store.pause(ControlScope(pipeline: "items", processor: "total"), by: requester))
            let controls = try await store.controls()
            #expect(controls.pauses.map(\.scope) == [ControlScope(pipeline: "items"), ControlScope(pipeline: "items", processor: "total")])
            #expect(controls.pauses.allSatisfy { $0.requestedBy == requester.description })
            #expect(controls.cancelledRuns.isEmpty)

            #expect(try await store.resume(ControlScope(pipeline: "items", processor: "edges")).isEmpty)
            #expect(try await store.resume(ControlScope(pipeline: "items", processor: "total")) == [ControlScope(pipeline: "items", processor: "total")])
            #expect(try await store.controls().pauses.map(\.scope) == [ControlScope(pipeline: "items")])
            _ = try await store.pause(ControlScope(pipeline: "items", processor: "size"), by: requester)
            #expect(Set(try await store.resume(ControlScope(pipeline: "items"))) == [
                ControlScope(pipeline: "items"), ControlScope(pipeline: "items", processor: "size"),
            ])
            #expect(try await store.controls().pauses.isEmpty)
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func aCancelMarksTheRunsInProgressItCoversAndEndsWithThem(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let conformance = ConformancePipeline()
            let (store, pipeline, plan) = (fixture.store, conformance.pipeline, conformance.plan)
            try await fixture.seed(pipeline, count: 2)
            #expect(try await store.cancel(ControlScope(pipeline: "items")).isEmpty)
            let lease = try await fixture.lease(1)
            let run = try await store.startRun([plan], lease: lease)
            #expect(try await store.cancel(ControlScope(pipeline: "other")).isEmpty)
            #expect(try await store.cancel(ControlScope(pipeline: "items", processor: "total")) == [run.id])
            #expect(try await store.cancel(ControlScope(pipeline: "items")) == [run.id])
            #expect(try await store.controls().cancelledRuns == [run.id])

            let holds = try await store.workerHolds()
            #expect(holds.map(\.runID) == [run.id])
            #expect(holds.first?.hold == nil)
            try await store.reportHold(.throttled("replica lag: 9 s > 5 s"), lease: lease)
            #expect(try await store.workerHolds().first?.hold == .throttled("replica lag: 9 s > 5 s"))
            try await store.reportHold(.paused, lease: lease)
            let paused = try #require(try await store.workerHolds().first)
            #expect(paused.hold == .paused && paused.since != nil && paused.worker.processID == 1)
            try await store.reportHold(nil, lease: lease)
            #expect(try await store.workerHolds().first?.hold == nil)

            try await store.finishRun(run.id, status: .cancelled, counts: RunCounts(), lease: lease)
            try await store.releaseLease(lease)
            #expect(try await store.runs(limit: 1).first?.status == .cancelled)
            #expect(try await store.controls().cancelledRuns.isEmpty)
            #expect(try await store.workerHolds().isEmpty)
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func aPausedRunnerCommitsWhatItClaimedWaitsAndGoesOnWithItsCounts(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let pipeline = ConformancePipeline().pipeline
            let (task, events) = try await Self.pausedRun(pipeline, fixture)
            // The worker reports its hold to the store once what it claimed is committed, which may
            // come after the progress event.
            var holds = try await fixture.store.workerHolds().map(\.hold)
            for _ in 0..<200 where holds != [.paused] {
                try await Task.sleep(for: .milliseconds(50))
                holds = try await fixture.store.workerHolds().map(\.hold)
            }
            #expect(holds == [.paused])
            let held = try await fixture.status(pipeline)["total"]?.upToDate
            #expect(try await fixture.store.runs(limit: 1).first?.status == .running)
            // Nothing more is committed while paused, however long that is.
            try await Task.sleep(for: .milliseconds(600))
            #expect(try await fixture.status(pipeline)["total"]?.upToDate == held)
            #expect((held ?? 0) < 60)

            _ = try await fixture.store.resume(ControlScope(pipeline: "items"))
            let summary = try await task.value
            #expect(summary.status == .completed)
            #expect(summary.counts.total == 60)
            #expect(events.current.holds == [.paused, nil])
            let runs = try await fixture.store.runs(limit: nil)
            #expect(runs.count == 1)
            #expect(runs.first?.counts.total == 60)
            #expect(try await fixture.status(pipeline)["total"]?.upToDate == 60)
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func aCancelledRunEndsWithWhatItCommittedAndRollsBack(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let pipeline = ConformancePipeline().pipeline
            // Paused first, so that the cancel meets a waiting run, as it would after `rederive pause`.
            let (task, _) = try await Self.pausedRun(pipeline, fixture)
            let cancelled = try await fixture.store.cancel(ControlScope(pipeline: "items", processor: "size"))
            let summary = try await task.value
            #expect(cancelled == [summary.runID])
            #expect(summary.status == .cancelled)
            #expect(summary.counts.total > 0 && summary.counts.total < 60)
            let recorded = try #require(try await fixture.store.runs(limit: 1).first)
            #expect(recorded.status == .cancelled && recorded.counts == summary.counts)
            #expect(try await fixture.status(pipeline)["total"]?.upToDate == summary.counts.total)

            let report = try await fixture.store.rollback(run: summary.runID, pipelines: [pipeline])
            #expect(report.skipped.isEmpty)
            #expect(try await fixture.status(pipeline)["total"]?.upToDate == 0)
            #expect(try await fixture.values(of: "k0", pipeline)?["total"] != .real(3))
        }
    }

    /// Seeds 60 records, starts a ``slow`` run of them, and pauses it once it has committed some:
    /// returns when the runner says it is held.
    static func pausedRun(_ pipeline: Pipeline, _ fixture: StoreFixture) async throws -> (Task<RunSummary, any Error>, HoldEvents) {
        try await fixture.seed(pipeline, count: 60)
        let events = HoldEvents()
        let runner = Runner(store: fixture.store, pipelines: [pipeline], configuration: slow, progress: events)
        let task = Task { try await runner.run() }
        try await events.wait { $0.done > 0 }
        _ = try await fixture.store.pause(ControlScope(pipeline: "items"), by: .current)
        try await events.wait { $0.holds.last == .some(.paused) }
        return (task, events)
    }

    /// A run of 60 records that takes about 3 s, with a heartbeat every 0.2 s.
    static var slow: Runner.Configuration {
        var configuration = Runner.Configuration(parallelism: 2, batchSize: 5, maximumRate: 20)
        configuration.claimSize = 5
        configuration.leaseDuration = .milliseconds(600)
        return configuration
    }
}

/// Records a runner's progress and holds, and lets a test wait for them.
final class HoldEvents: ProgressReporter {
    struct Seen: Sendable {
        var done = 0
        /// Every hold reported, in order: nil when the claims went on again.
        var holds: [ClaimHold?] = []
    }

    private let seen = Mutex(Seen())

    var current: Seen { seen.withLock { $0 } }

    func report(_ event: ProgressEvent) {
        seen.withLock { seen in
            switch event {
            case .advanced(let progress): seen.done = max(seen.done, progress.done)
            case .held(let hold): seen.holds.append(hold)
            default: break
            }
        }
    }

    /// Waits until what was seen satisfies `condition`.
    func wait(until condition: (Seen) -> Bool) async throws {
        while !condition(current) {
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
