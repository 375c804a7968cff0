import Rederive

/// Every store keeps a failure per record and processor, with its dependents' `upstream` failures,
/// leaves it alone until the payload or the version changes or a run retries it, and clears it once
/// the processor derives.
enum FailureChecks {
    static let area = "failures and retry"

    static let all: [StoreCheck] = [
        StoreCheck(area, "aFailureIsKeptAndNotRetriedUntilAsked") { fixture, expect in
            let conformance = ConformancePipeline()
            let pipeline = conformance.pipeline
            try await fixture.seed(pipeline, count: 3, label: { $0 == 1 ? "explode" : "s\($0)" })
            let first = try await fixture.run(pipeline)
            expect.equal(first.counts, RunCounts(changed: 2, failed: 1), #"first.counts"#)

            let failures = try await fixture.store.failures(of: pipeline, filter: FailureFilter())
            let id = try await fixture.ids(pipeline)["k1"]
            expect.equal(failures.map(\.processor), ["total", "size"], #"failures.map(\.processor)"#)
            expect(failures.allSatisfy { $0.recordID == id && $0.key == "k1" && $0.runID == first.runID && $0.pipeline == "items" },
                #"failures.allSatisfy { $0.recordID == id && $0.key == "k1" && $0.runID == first.runID && $0.pipeline == "items" }"#)
            expect.equal(failures.first?.kind, .processor, #"failures.first?.kind"#)
            expect.equal(failures.first?.message.contains("refusing to total an exploding item"), true,
                #"failures.first?.message.contains("refusing to total an exploding item")"#)
            expect.equal(failures.last?.kind, .upstream, #"failures.last?.kind"#)
            expect.equal(try await fixture.store.failures(of: pipeline, filter: FailureFilter(processors: ["size"])).map(\.processor), ["size"],
                #"fixture.store.failures(of: pipeline, filter: FailureFilter(processors: ["size"])).map(\.processor)"#)
            expect(try await fixture.store.failures(of: pipeline, filter: FailureFilter(runID: first.runID + 1_000)).isEmpty,
                #"fixture.store.failures(of: pipeline, filter: FailureFilter(runID: first.runID + 1_000)).isEmpty"#)
            let status = try await fixture.status(pipeline)
            expect(status["total"]?.failed == 1 && status["total"]?.stale == 0 && status["total"]?.upToDate == 2,
                #"status["total"]?.failed == 1 && status["total"]?.stale == 0 && status["total"]?.upToDate == 2"#)

            // Not retried by every run.
            conformance.derivations.reset()
            let second = try await fixture.run(pipeline)
            expect(second.pending == 0 && second.counts == RunCounts(), #"second.pending == 0 && second.counts == RunCounts()"#)
            expect.equal(conformance.derivations["total"], 0, #"conformance.derivations["total"]"#)

            // Retried when asked, and failing again.
            expect.equal(try await fixture.store.staleCount(RunPlan(pipeline: pipeline, retryFailed: true)), 1,
                #"fixture.store.staleCount(RunPlan(pipeline: pipeline, retryFailed: true))"#)
            let retried = try await fixture.run(pipeline, retryFailed: true)
            expect(retried.pending == 1 && retried.counts == RunCounts(failed: 1),
                #"retried.pending == 1 && retried.counts == RunCounts(failed: 1)"#)
            expect(try await fixture.store.failures(of: pipeline, filter: FailureFilter()).allSatisfy { $0.runID == retried.runID },
                #"fixture.store.failures(of: pipeline, filter: FailureFilter()).allSatisfy { $0.runID == retried.runID }"#)

            // The bug fixed without a version bump: a retry derives the record and clears its failures.
            let fixed = ConformancePipeline(totalFixed: true).pipeline
            let repaired = try await fixture.run(fixed, retryFailed: true)
            expect.equal(repaired.counts, RunCounts(changed: 1), #"repaired.counts"#)
            expect(try await fixture.store.failures(of: fixed, filter: FailureFilter()).isEmpty,
                #"fixture.store.failures(of: fixed, filter: FailureFilter()).isEmpty"#)
            expect(try await fixture.status(fixed).values.allSatisfy { $0.upToDate == 3 && $0.failed == 0 },
                #"fixture.status(fixed).values.allSatisfy { $0.upToDate == 3 && $0.failed == 0 }"#)
        },
        StoreCheck(area, "aFailureClearsOnceItsProcessorDerives") { fixture, expect in
            let pipeline = ConformancePipeline().pipeline
            try await fixture.seed(pipeline, count: 2, label: { $0 == 1 ? "explode" : "s\($0)" })
            _ = try await fixture.run(pipeline)
            expect.equal(try await fixture.store.failures(of: pipeline, filter: FailureFilter()).count, 2,
                #"fixture.store.failures(of: pipeline, filter: FailureFilter()).count"#)

            // A new payload makes the failure stale: no longer counted, and derived again.
            try await fixture.replace("k1", label: "fixed", values: [7, 8], in: pipeline)
            expect(try await fixture.store.failures(of: pipeline, filter: FailureFilter()).isEmpty,
                #"fixture.store.failures(of: pipeline, filter: FailureFilter()).isEmpty"#)
            expect.equal(try await fixture.status(pipeline)["total"].map { [$0.failed, $0.stale] }, [0, 1],
                #"[failed, stale] of total"#)
            let summary = try await fixture.run(pipeline)
            expect.equal(summary.counts, RunCounts(changed: 1), #"summary.counts"#)
            expect(try await fixture.store.failures(of: pipeline, filter: FailureFilter()).isEmpty,
                #"fixture.store.failures(of: pipeline, filter: FailureFilter()).isEmpty"#)
            expect(try await fixture.status(pipeline).values.allSatisfy { $0.upToDate == 2 && $0.failed == 0 },
                #"fixture.status(pipeline).values.allSatisfy { $0.upToDate == 2 && $0.failed == 0 }"#)
            expect.equal(try await fixture.values(of: "k1", pipeline)?["size"], .text("big"),
                #"fixture.values(of: "k1", pipeline)?["size"]"#)
        },
        StoreCheck(area, "aVersionBumpRetriesTheProcessorsFailures") { fixture, expect in
            try await fixture.seed(ConformancePipeline().pipeline, count: 2, label: { $0 == 1 ? "explode" : "s\($0)" })
            _ = try await fixture.run(ConformancePipeline().pipeline)

            let bumped = ConformancePipeline(totalVersion: 2)
            // A failure of another version is not current.
            expect(try await fixture.store.failures(of: bumped.pipeline, filter: FailureFilter(processors: ["total"])).isEmpty,
                #"fixture.store.failures(of: bumped.pipeline, filter: FailureFilter(processors: ["total"])).isEmpty"#)
            expect.equal(try await fixture.status(bumped.pipeline)["total"]?.stale, 2, #"fixture.status(bumped.pipeline)["total"]?.stale"#)
            let summary = try await fixture.run(bumped.pipeline)
            expect.equal(summary.counts, RunCounts(unchanged: 1, failed: 1), #"summary.counts"#)
            expect.equal(try await fixture.store.failures(of: bumped.pipeline, filter: FailureFilter()).map(\.version), [2, 1],
                #"fixture.store.failures(of: bumped.pipeline, filter: FailureFilter()).map(\.version)"#)
        },
        StoreCheck(area, "aDependentOfAnInputThatFailedFailsUpstreamWithoutDeriving") { fixture, expect in
            try await fixture.seed(ConformancePipeline().pipeline, count: 2, label: { $0 == 1 ? "explode" : "s\($0)" })
            _ = try await fixture.run(ConformancePipeline().pipeline)

            // `size` alone is stale; its input failed on k1, and that failure is not retried.
            let bumped = ConformancePipeline(sizeVersion: 2)
            let pending = try await fixture.store.staleRecords(bumped.plan, after: nil, limit: 10, byteLimit: 1 << 20)
            let k1 = try await fixture.ids(bumped.pipeline)["k1"]
            expect.equal(pending.first { $0.recordID == k1 }?.dependencies.failures, [ConformancePipeline.total: .processor],
                #"pending.first { $0.recordID == k1 }?.dependencies.failures"#)
            let summary = try await fixture.run(bumped.pipeline)
            expect.equal(summary.counts, RunCounts(unchanged: 1, failed: 1), #"summary.counts"#)
            expect.equal(bumped.derivations["size"], 1, #"bumped.derivations["size"]"#)
            let failures = try await fixture.store.failures(of: bumped.pipeline, filter: FailureFilter())
            expect.equal(failures.map(\.processor), ["total", "size"], #"failures.map(\.processor)"#)
            expect.equal(failures.map(\.kind), [.processor, .upstream], #"failures.map(\.kind)"#)
            expect.equal(failures.map(\.version), [1, 2], #"failures.map(\.version)"#)
        },
    ]
}

