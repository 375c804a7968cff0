import Rederive

/// Every store keeps pauses and cancels, and a runner on it honours them: a pause holds its claims
/// and commits what it claimed, a resume lets it go on with its counts, a cancel ends it as
/// cancelled with what it committed, which a rollback undoes.
enum RunControlChecks {
    static let area = "pause, resume and cancel"

    static let all: [StoreCheck] = [
        StoreCheck(area, needs: .runControl, "pausesAreKeptUntilResumedAndAPipelinesResumeLiftsItsProcessors") { fixture, expect in
            let control = try fixture.control()
            let store = fixture.store
            try await store.prepare(ConformancePipeline().pipeline)
            let requester = WorkerIdentity(host: "conformance", processID: 7)
            expect(try await control.pause(ControlScope(pipeline: "items"), by: requester),
                #"control.pause(ControlScope(pipeline: "items"), by: requester)"#)
            expect(try await !control.pause(ControlScope(pipeline: "items"), by: requester),
                #"!control.pause(ControlScope(pipeline: "items"), by: requester)"#)
            expect(try await control.pause(ControlScope(pipeline: "items", processor: "total"), by: requester),
                #"control.pause(ControlScope(pipeline: "items", processor: "total"), by: requester)"#)
            let controls = try await control.controls()
            expect.equal(controls.pauses.map(\.scope), [ControlScope(pipeline: "items"), ControlScope(pipeline: "items", processor: "total")],
                #"controls.pauses.map(\.scope)"#)
            expect(controls.pauses.allSatisfy { $0.requestedBy == requester.description },
                #"controls.pauses.allSatisfy { $0.requestedBy == requester.description }"#)
            expect(controls.cancelledRuns.isEmpty, #"controls.cancelledRuns.isEmpty"#)

            expect(try await control.resume(ControlScope(pipeline: "items", processor: "edges")).isEmpty,
                #"control.resume(ControlScope(pipeline: "items", processor: "edges")).isEmpty"#)
            expect.equal(try await control.resume(ControlScope(pipeline: "items", processor: "total")), [ControlScope(pipeline: "items", processor: "total")],
                #"control.resume(ControlScope(pipeline: "items", processor: "total"))"#)
            expect.equal(try await control.controls().pauses.map(\.scope), [ControlScope(pipeline: "items")],
                #"control.controls().pauses.map(\.scope)"#)
            _ = try await control.pause(ControlScope(pipeline: "items", processor: "size"), by: requester)
            expect.equal(Set(try await control.resume(ControlScope(pipeline: "items"))), [
                ControlScope(pipeline: "items"), ControlScope(pipeline: "items", processor: "size"),
            ], #"Set(control.resume(ControlScope(pipeline: "items")))"#)
            expect(try await control.controls().pauses.isEmpty, #"control.controls().pauses.isEmpty"#)
        },
        StoreCheck(area, needs: .runControl, "aCancelMarksTheRunsInProgressItCoversAndEndsWithThem") { fixture, expect in
            let control = try fixture.control()
            let conformance = ConformancePipeline()
            let (store, pipeline, plan) = (fixture.store, conformance.pipeline, conformance.plan)
            try await fixture.seed(pipeline, count: 2)
            expect(try await control.cancel(ControlScope(pipeline: "items")).isEmpty,
                #"control.cancel(ControlScope(pipeline: "items")).isEmpty"#)
            let lease = try await fixture.lease(1)
            let run = try await store.startRun([plan], lease: lease)
            expect(try await control.cancel(ControlScope(pipeline: "other")).isEmpty,
                #"control.cancel(ControlScope(pipeline: "other")).isEmpty"#)
            expect.equal(try await control.cancel(ControlScope(pipeline: "items", processor: "total")), [run.id],
                #"control.cancel(ControlScope(pipeline: "items", processor: "total"))"#)
            expect.equal(try await control.cancel(ControlScope(pipeline: "items")), [run.id],
                #"control.cancel(ControlScope(pipeline: "items"))"#)
            expect.equal(try await control.controls().cancelledRuns, [run.id], #"control.controls().cancelledRuns"#)

            let holds = try await control.workerHolds()
            expect.equal(holds.map(\.runID), [run.id], #"holds.map(\.runID)"#)
            expect.equal(holds.first?.hold, nil, #"holds.first?.hold"#)
            try await control.reportHold(.throttled("replica lag: 9 s > 5 s"), lease: lease)
            expect.equal(try await control.workerHolds().first?.hold, .throttled("replica lag: 9 s > 5 s"),
                #"control.workerHolds().first?.hold"#)
            try await control.reportHold(.paused, lease: lease)
            let paused = try expect.require(try await control.workerHolds().first, #"control.workerHolds().first"#)
            expect(paused.hold == .paused && paused.since != nil && paused.worker.processID == 1,
                #"paused.hold == .paused && paused.since != nil && paused.worker.processID == 1"#)
            try await control.reportHold(nil, lease: lease)
            expect.equal(try await control.workerHolds().first?.hold, nil, #"control.workerHolds().first?.hold"#)

            try await store.finishRun(run.id, status: .cancelled, counts: RunCounts(), lease: lease)
            try await store.releaseLease(lease)
            expect.equal(try await store.runs(limit: 1).first?.status, .cancelled, #"store.runs(limit: 1).first?.status"#)
            expect(try await control.controls().cancelledRuns.isEmpty, #"control.controls().cancelledRuns.isEmpty"#)
            expect(try await control.workerHolds().isEmpty, #"control.workerHolds().isEmpty"#)
        },
        StoreCheck(area, needs: .runControl, "aPausedRunnerCommitsWhatItClaimedWaitsAndGoesOnWithItsCounts") { fixture, expect in
            let control = try fixture.control()
            let pipeline = ConformancePipeline().pipeline
            let (task, events) = try await RunControlChecks.pausedRun(pipeline, fixture)
            // The worker reports its hold to the store once what it claimed is committed, which may
            // come after the progress event.
            var holds = try await control.workerHolds().map(\.hold)
            for _ in 0..<200 where holds != [.paused] {
                try await Task.sleep(for: .milliseconds(50))
                holds = try await control.workerHolds().map(\.hold)
            }
            expect.equal(holds, [.paused], #"holds"#)
            let held = try await fixture.status(pipeline)["total"]?.upToDate
            expect.equal(try await fixture.store.runs(limit: 1).first?.status, .running, #"fixture.store.runs(limit: 1).first?.status"#)
            // Nothing more is committed while paused, however long that is.
            try await Task.sleep(for: .milliseconds(600))
            expect.equal(try await fixture.status(pipeline)["total"]?.upToDate, held, #"fixture.status(pipeline)["total"]?.upToDate"#)
            expect((held ?? 0) < 60, #"(held ?? 0) < 60"#)

            _ = try await control.resume(ControlScope(pipeline: "items"))
            let summary = try await task.value
            expect.equal(summary.status, .completed, #"summary.status"#)
            expect.equal(summary.counts.total, 60, #"summary.counts.total"#)
            expect.equal(events.current.holds, [.paused, nil], #"events.current.holds"#)
            let runs = try await fixture.store.runs(limit: nil)
            expect.equal(runs.count, 1, #"runs.count"#)
            expect.equal(runs.first?.counts.total, 60, #"runs.first?.counts.total"#)
            expect.equal(try await fixture.status(pipeline)["total"]?.upToDate, 60, #"fixture.status(pipeline)["total"]?.upToDate"#)
        },
        StoreCheck(area, needs: .runControl, "aCancelledRunEndsWithWhatItCommittedAndRollsBack") { fixture, expect in
            let control = try fixture.control()
            let pipeline = ConformancePipeline().pipeline
            // Paused first, so that the cancel meets a waiting run, as it would after `rederive pause`.
            let (task, _) = try await RunControlChecks.pausedRun(pipeline, fixture)
            let cancelled = try await control.cancel(ControlScope(pipeline: "items", processor: "size"))
            let summary = try await task.value
            expect.equal(cancelled, [summary.runID], #"cancelled"#)
            expect.equal(summary.status, .cancelled, #"summary.status"#)
            expect(summary.counts.total > 0 && summary.counts.total < 60, #"summary.counts.total > 0 && summary.counts.total < 60"#)
            let recorded = try expect.require(try await fixture.store.runs(limit: 1).first, #"fixture.store.runs(limit: 1).first"#)
            expect(recorded.status == .cancelled && recorded.counts == summary.counts,
                #"recorded.status == .cancelled && recorded.counts == summary.counts"#)
            expect.equal(try await fixture.status(pipeline)["total"]?.upToDate, summary.counts.total,
                #"fixture.status(pipeline)["total"]?.upToDate"#)

            let report = try await fixture.store.rollback(run: summary.runID, pipelines: [pipeline])
            expect(report.skipped.isEmpty, #"report.skipped.isEmpty"#)
            expect.equal(try await fixture.status(pipeline)["total"]?.upToDate, 0, #"fixture.status(pipeline)["total"]?.upToDate"#)
            expect(try await fixture.values(of: "k0", pipeline)?["total"] != .real(3),
                #"fixture.values(of: "k0", pipeline)?["total"] != .real(3)"#)
        },
    ]

    /// Seeds 60 records, starts a ``slow`` run of them, and pauses it once it has committed some:
    /// returns when the runner says it is held.
    static func pausedRun(_ pipeline: Pipeline, _ fixture: CheckedFixture) async throws -> (Task<RunSummary, any Error>, HoldEvents) {
        let control = try fixture.control()
        try await fixture.seed(pipeline, count: 60)
        let events = HoldEvents()
        let runner = Runner(store: fixture.store, pipelines: [pipeline], configuration: slow, progress: events)
        let task = Task { try await runner.run() }
        try await events.wait { $0.done > 0 }
        _ = try await control.pause(ControlScope(pipeline: "items"), by: .current)
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
