import Rederive

/// Every store records runs with their processors, statuses and counts, records a run whose process
/// died as interrupted, rolls a run back to the values and stamps it replaced, and resets a pipeline.
enum RunChecks {
    static let area = "runs, history, rollback and reset"

    static let all: [StoreCheck] = [
        StoreCheck(area, "runsAreRecordedNewestFirstWithTheirCounts") { fixture, expect in
            let pipeline = ConformancePipeline().pipeline
            try await fixture.seed(pipeline, count: 3, label: { $0 == 2 ? "explode" : "s\($0)" })
            let first = try await fixture.run(pipeline)
            _ = try await fixture.store.invalidate(pipeline, processors: ["edges"], keys: nil)
            let second = try await fixture.run(pipeline)
            expect(second.runID > first.runID, #"second.runID > first.runID"#)

            let runs = try await fixture.store.runs(limit: nil)
            expect.equal(runs.map(\.id), [second.runID, first.runID], #"runs.map(\.id)"#)
            expect.equal(runs.map(\.status), [.completed, .completed], #"runs.map(\.status)"#)
            expect.equal(runs.map(\.counts), [RunCounts(unchanged: 3), RunCounts(changed: 2, failed: 1)], #"runs.map(\.counts)"#)
            expect(runs.allSatisfy { run in run.endedAt.map { $0 >= run.startedAt } == true },
                #"runs.allSatisfy { run in run.endedAt.map { $0 >= run.startedAt } == true }"#)
            expect.equal(runs.last?.processors, [
                ProcessorVersion(pipeline: "items", name: "total", version: 1),
                ProcessorVersion(pipeline: "items", name: "edges", version: 1),
                ProcessorVersion(pipeline: "items", name: "size", version: 1),
            ], #"runs.last?.processors"#)
            expect.equal(try await fixture.store.runs(limit: 1).map(\.id), [second.runID], #"fixture.store.runs(limit: 1).map(\.id)"#)
        },
        StoreCheck(area, "aRunWhoseProcessDiedIsRecordedInterruptedWithWhatItCommitted") { fixture, expect in
            let conformance = ConformancePipeline()
            let (store, plan) = (fixture.store, conformance.plan)
            let run = try await RunChecks.runThatDied(after: 2, of: 4, fixture, conformance)

            let next = try await fixture.lease(2)
            let started = try await store.startRun([plan], lease: next)
            expect(started.id != run.id, #"started.id != run.id"#)
            expect.equal(started.pending, [2], #"started.pending"#)
            let interrupted = try expect.require(try await store.runs(limit: nil).first { $0.id == run.id },
                #"store.runs(limit: nil).first { $0.id == run.id }"#)
            expect.equal(interrupted.status, .interrupted, #"interrupted.status"#)
            expect.equal(interrupted.counts, RunCounts(changed: 2), #"interrupted.counts"#)
            expect(interrupted.endedAt != nil, #"interrupted.endedAt != nil"#)
            try await store.finishRun(started.id, status: .completed, counts: RunCounts(), lease: next)
            try await store.releaseLease(next)
            expect.equal(try await store.runs(limit: 1).first?.status, .completed, #"store.runs(limit: 1).first?.status"#)
        },
        StoreCheck(area, "aRunWhoseLeaseLapsedShowsInterruptedWithWhatItCommittedBeforeAnyLaterRun") { fixture, expect in
            let conformance = ConformancePipeline()
            let (store, plan) = (fixture.store, conformance.plan)
            // No run starts after it.
            let run = try await RunChecks.runThatDied(after: 2, of: 4, fixture, conformance)

            let shown = try expect.require(try await store.runs(limit: nil).first { $0.id == run.id },
                #"store.runs(limit: nil).first { $0.id == run.id }"#)
            expect.equal(shown.status, .interrupted, #"shown.status"#)
            expect.equal(shown.counts, RunCounts(changed: 2), #"shown.counts"#)
            expect.equal(shown.endedAt.map { $0 >= shown.startedAt }, true, #"shown.endedAt.map { $0 >= shown.startedAt }"#)
            expect.equal(try await store.runs(limit: 1).first?.status, .interrupted, #"store.runs(limit: 1).first?.status"#)

            // A later run still records it so, as it was shown.
            let next = try await fixture.lease(2)
            let started = try await store.startRun([plan], lease: next)
            let recorded = try expect.require(try await store.runs(limit: nil).first { $0.id == run.id },
                #"store.runs(limit: nil).first { $0.id == run.id }"#)
            expect(recorded.status == .interrupted && recorded.counts == shown.counts && recorded.endedAt == shown.endedAt,
                #"recorded.status == .interrupted && recorded.counts == shown.counts && recorded.endedAt == shown.endedAt"#)
            try await store.finishRun(started.id, status: .completed, counts: RunCounts(), lease: next)
            try await store.releaseLease(next)
        },
        StoreCheck(area, "rollbackRestoresTheValuesAndStampsARunReplaced") { fixture, expect in
            let original = ConformancePipeline().pipeline
            try await fixture.seed(original, count: 3)
            let first = try await fixture.run(original)
            let scaled = ConformancePipeline(totalVersion: 2, totalScale: 10).pipeline
            // `edges` derives again to the same values: the second run changes none of them.
            _ = try await fixture.store.invalidate(original, processors: ["edges"], keys: nil)
            let second = try await fixture.run(scaled)
            expect.equal(second.counts, RunCounts(changed: 3), #"second.counts"#)
            expect.equal(try await fixture.values(of: "k0", scaled)?["total"], .real(30), #"fixture.values(of: "k0", scaled)?["total"]"#)

            // What a later run changed again is not rolled back over it; `edges`, which it derived to the
            // same values, is.
            let blocked = try await fixture.store.rollback(run: first.runID, pipelines: [original])
            expect.equal(blocked.restored.map(\.processor), ["edges", "edges", "edges"], #"blocked.restored.map(\.processor)"#)
            expect.equal(blocked.skipped.count, 6, #"blocked.skipped.count"#)
            expect(blocked.skipped.allSatisfy {
                $0.reason == "run \(second.runID) changed it again; roll that run back first" && $0.key != nil
            },
                #"blocked.skipped.allSatisfy { $0.reason == "run \(second.runID) changed it again; roll that run back first" && $0.key != nil }"#)

            // One payload changes since: that record stays as it is.
            try await fixture.replace("k2", label: "s2", values: [1], in: scaled)
            let report = try await fixture.store.rollback(run: second.runID, pipelines: [scaled])
            expect.equal(report.restored.map(\.processor), ["size", "total", "size", "total"], #"report.restored.map(\.processor)"#)
            expect.equal(Set(report.restored.map(\.key)), ["k0", "k1"], #"Set(report.restored.map(\.key))"#)
            expect.equal(report.skipped.count, 2, #"report.skipped.count"#)
            expect(report.skipped.allSatisfy { $0.key == "k2" && $0.reason?.contains("payload changed") == true },
                #"report.skipped.allSatisfy { $0.key == "k2" && $0.reason?.contains("payload changed") == true }"#)

            expect.equal(try await fixture.values(of: "k0", original)?["total"], .real(3), #"fixture.values(of: "k0", original)?["total"]"#)
            expect.equal(try await fixture.values(of: "k0", original)?["size"], .text("small"),
                #"fixture.values(of: "k0", original)?["size"]"#)
            // The restored stamps are of version 1: current again for the original pipeline.
            let status = try await fixture.status(original)
            expect(status["total"]?.upToDate == 2 && status["size"]?.upToDate == 2 && status["edges"]?.upToDate == 0,
                #"status["total"]?.upToDate == 2 && status["size"]?.upToDate == 2 && status["edges"]?.upToDate == 0"#)
            expect.equal(try await fixture.status(scaled)["total"]?.stale, 3, #"fixture.status(scaled)["total"]?.stale"#)
            // What was rolled back is gone: a second rollback restores nothing.
            let again = try await fixture.store.rollback(run: second.runID, pipelines: [scaled])
            expect(again.restored.isEmpty, #"again.restored.isEmpty"#)

            let unknown = await expect.throwsRederiveError {
                _ = try await fixture.store.rollback(run: second.runID + 1_000, pipelines: [scaled])
            }
            expect.equal(unknown?.code, .unknownName, #"unknown?.code"#)
        },
        StoreCheck(area, "rollingBackAFirstDerivationPutsTheDefaultsBack") { fixture, expect in
            let pipeline = ConformancePipeline().pipeline
            try await fixture.seed(pipeline, count: 2)
            // An empty item's size is NULL, its column's default: a first derivation still replaces it.
            _ = try await fixture.importPayloads([("empty", ConformancePipeline.item("empty", []))], pipeline)
            let run = try await fixture.run(pipeline)
            expect.equal(try await fixture.values(of: "empty", pipeline)?["size"], .null,
                #"fixture.values(of: "empty", pipeline)?["size"]"#)
            let report = try await fixture.store.rollback(run: run.runID, pipelines: [pipeline])
            expect.equal(report.restored.count, 9, #"report.restored.count"#)
            expect(try await fixture.status(pipeline).values.allSatisfy { $0.upToDate == 0 && $0.stale == 3 },
                #"fixture.status(pipeline).values.allSatisfy { $0.upToDate == 0 && $0.stale == 3 }"#)
            let values = try expect.require(try await fixture.values(of: "k0", pipeline), #"fixture.values(of: "k0", pipeline)"#)
            expect.equal(values, ["total": .null, "not_a_number": .null, "negative_zero": .null, "integer_in_real": .real(0), "size": .null],
                #"values"#)
        },
        StoreCheck(area, "rollingBackAnInputMakesItsDependentsStale") { fixture, expect in
            try await fixture.seed(ConformancePipeline().pipeline, count: 2)
            _ = try await fixture.run(ConformancePipeline().pipeline)
            // Only `total` changes, not `size`: k0 3 → 3.5, k1 4 → 4.5 stay small.
            let pipeline = ConformancePipeline(totalVersion: 2, totalScale: 1.125).pipeline
            let second = try await fixture.run(pipeline)
            expect.equal(second.counts, RunCounts(changed: 2), #"second.counts"#)

            let report = try await fixture.store.rollback(run: second.runID, pipelines: [pipeline])
            expect.equal(report.restored.map(\.processor), ["total", "total"], #"report.restored.map(\.processor)"#)
            let status = try await fixture.status(ConformancePipeline().pipeline)
            expect.equal(status["total"]?.upToDate, 2, #"status["total"]?.upToDate"#)
            expect.equal(status["size"]?.stale, 2, #"status["size"]?.stale"#, "size was derived from the values rolled back")
        },
        StoreCheck(area, "resetClearsDerivedStateAndKeepsPayloads") { fixture, expect in
            let pipeline = ConformancePipeline().pipeline
            try await fixture.seed(pipeline, count: 3, label: { $0 == 0 ? "explode" : "s\($0)" })
            let run = try await fixture.run(pipeline)
            expect.equal(try await fixture.store.reset(pipeline), 3, #"fixture.store.reset(pipeline)"#)

            expect(try await fixture.status(pipeline).values.allSatisfy { $0.upToDate == 0 && $0.failed == 0 && $0.stale == 3 },
                #"fixture.status(pipeline).values.allSatisfy { $0.upToDate == 0 && $0.failed == 0 && $0.stale == 3 }"#)
            expect(try await fixture.store.failures(of: pipeline, filter: FailureFilter()).isEmpty,
                #"fixture.store.failures(of: pipeline, filter: FailureFilter()).isEmpty"#)
            expect.equal(try await fixture.values(of: "k1", pipeline), [
                "total": .null, "not_a_number": .null, "negative_zero": .null, "integer_in_real": .real(0), "size": .null,
            ], #"fixture.values(of: "k1", pipeline)"#)
            let records = try await fixture.store.storedRecords(of: pipeline, after: nil, limit: 10)
            expect.equal(records.map(\.payload), (0..<3).map { ConformancePipeline.item($0 == 0 ? "explode" : "s\($0)", [Double($0), 1, 2]) },
                #"records.map(\.payload)"#)
            // Kept values are gone: rolling the run back fails, and says why.
            let gone = await expect.throwsRederiveError {
                _ = try await fixture.store.rollback(run: run.runID, pipelines: [pipeline])
            }
            expect.equal(gone?.message.contains("reset cleared it"), true,
                #"gone?.message.contains("reset cleared it")"#, "\(gone?.message ?? "")")
            expect.equal(try await fixture.run(pipeline).counts, RunCounts(changed: 2, failed: 1), #"fixture.run(pipeline).counts"#)
        },
    ]

    /// A run, of `count` seeded records, whose process committed `committed` of them and died: it never
    /// finishes the run nor renews its lease, which has lapsed on return.
    static func runThatDied(
        after committed: Int, of count: Int, _ fixture: CheckedFixture, _ conformance: ConformancePipeline
    ) async throws -> StartedRun {
        let (store, pipeline, plan) = (fixture.store, conformance.pipeline, conformance.plan)
        try await fixture.seed(pipeline, count: count)
        // Long enough that the lease outlives the commit and the look at the run on a loaded machine
        // (300 ms did not, beside other suites), short enough to wait out.
        let dead = try await fixture.lease(1, lasting: .seconds(2))
        let run = try await store.startRun([plan], lease: dead)
        let claimed = try await store.claim(plan, limit: committed, byteLimit: 1 << 20, lease: dead)
        let counts = try await store.commit(ClaimChecks.derive(claimed, pipeline), plan: plan, runID: run.id, lease: dead).counts
        fixture.expect.equal(counts, RunCounts(changed: committed), #"counts"#)
        fixture.expect.equal(try await store.runs(limit: nil).first?.status, .running, #"store.runs(limit: nil).first?.status"#)
        try await Task.sleep(for: .milliseconds(2_400))
        return run
    }
}

