import Rederive

/// Every store holds a value as SQLite's columns hold it, and counts a record unchanged when storing
/// its new values leaves every column as it was: NaN is held as NULL, −0.0 as 0.0, an integer in a
/// REAL column as a real.
enum CommitChecks {
    static let area = "commits and unchanged values"

    static let all: [StoreCheck] = [
        StoreCheck(area, "valuesAreHeldAsTheColumnsHoldThem") { fixture, expect in
            let pipeline = ConformancePipeline().pipeline
            try await fixture.seed(pipeline, count: 3)
            expect.equal(try await fixture.values(of: "k1", pipeline), nil, #"fixture.values(of: "k1", pipeline)"#)
            let summary = try await fixture.run(pipeline)
            expect.equal(summary.counts, RunCounts(changed: 3), #"summary.counts"#)

            let values = try expect.require(try await fixture.values(of: "k1", pipeline), #"fixture.values(of: "k1", pipeline)"#)
            expect.equal(values["total"], .real(4), #"values["total"]"#)
            expect.equal(values["not_a_number"], .null, #"values["not_a_number"]"#)
            guard case .real(let zero) = values["negative_zero"] else {
                expect.record("negative_zero holds \(String(describing: values["negative_zero"]))")
                return
            }
            expect.equal(zero.bitPattern, 0.0.bitPattern, #"zero.bitPattern"#, "−0.0 is held as 0.0")
            expect.equal(values["integer_in_real"], .real(3_000), #"values["integer_in_real"]"#)
            expect.equal(values["size"], .text("small"), #"values["size"]"#)
        },
        StoreCheck(area, "aSecondDerivationOfTheSameValuesCountsEveryRecordUnchanged") { fixture, expect in
            let pipeline = ConformancePipeline().pipeline
            try await fixture.seed(pipeline, count: 5)
            _ = try await fixture.run(pipeline)
            expect.equal(try await fixture.store.invalidate(pipeline, processors: nil, keys: nil), 5,
                #"fixture.store.invalidate(pipeline, processors: nil, keys: nil)"#)
            expect.equal(try await fixture.store.staleCount(RunPlan(pipeline: pipeline)), 5,
                #"fixture.store.staleCount(RunPlan(pipeline: pipeline))"#)

            let second = try await fixture.run(pipeline)
            expect.equal(second.pending, 5, #"second.pending"#)
            expect.equal(second.counts, RunCounts(unchanged: 5), #"second.counts"#)
            // Nothing changed, so nothing was kept to roll back.
            let rollback = try await fixture.store.rollback(run: second.runID, pipelines: [pipeline])
            expect(rollback.restored.isEmpty && rollback.skipped.isEmpty, #"rollback.restored.isEmpty && rollback.skipped.isEmpty"#)
            expect(try await fixture.status(pipeline).values.allSatisfy { $0.upToDate == 5 },
                #"fixture.status(pipeline).values.allSatisfy { $0.upToDate == 5 }"#)
        },
        StoreCheck(area, "aCommitStoresValuesStampsAndFailuresTogether") { fixture, expect in
            let conformance = ConformancePipeline()
            let (store, pipeline, plan) = (fixture.store, conformance.pipeline, conformance.plan)
            try await fixture.seed(pipeline, count: 2, label: { $0 == 1 ? "explode" : "s\($0)" })
            let lease = try await fixture.lease(1)
            let run = try await store.startRun([plan], lease: lease)
            let claimed = try await store.claim(plan, limit: 2, byteLimit: 1 << 20, lease: lease)
            let results = ClaimChecks.derive(claimed, pipeline)
            let counts = try await store.commit(results, plan: plan, runID: run.id, lease: lease).counts
            expect.equal(counts, RunCounts(changed: 1, failed: 1), #"counts"#)
            try await store.finishRun(run.id, status: .completed, counts: counts, lease: lease)
            try await store.releaseLease(lease)

            let status = try await fixture.status(pipeline)
            expect.equal(status["total"].map { [$0.upToDate, $0.failed, $0.stale] }, [1, 1, 0],
                #"[upToDate, failed, stale] of total"#)
            expect.equal(status["edges"].map { [$0.upToDate, $0.failed, $0.stale] }, [2, 0, 0],
                #"[upToDate, failed, stale] of edges"#)
            expect.equal(status["size"].map { [$0.upToDate, $0.failed, $0.stale] }, [1, 1, 0],
                #"[upToDate, failed, stale] of size"#)
            expect.equal(try await fixture.values(of: "k1", pipeline)?["total"], .null, #"fixture.values(of: "k1", pipeline)?["total"]"#)
            expect.equal(try await fixture.values(of: "k1", pipeline)?["integer_in_real"], .real(3_000),
                #"fixture.values(of: "k1", pipeline)?["integer_in_real"]"#)
        },
        StoreCheck(area, "aCommitWithAWrongNumberOfValuesIsRefusedWhole") { fixture, expect in
            let conformance = ConformancePipeline()
            let (store, pipeline, plan) = (fixture.store, conformance.pipeline, conformance.plan)
            try await fixture.seed(pipeline, count: 2)
            let lease = try await fixture.lease(1)
            let run = try await store.startRun([plan], lease: lease)
            let claimed = try await store.claim(plan, limit: 2, byteLimit: 1 << 20, lease: lease)
            var results = ClaimChecks.derive(claimed, pipeline)
            let wrong = results[1]
            results[1] = RecordResult(
                recordID: wrong.recordID, generation: wrong.generation, payloadDigest: wrong.payloadDigest,
                outcomes: [(ConformancePipeline.edges, .derived([.real(1)]))]
            )
            let refusal = await expect.throwsRederiveError {
                _ = try await store.commit(results, plan: plan, runID: run.id, lease: lease)
            }
            expect.equal(refusal?.code, .invalidRegistration, #"refusal?.code"#)
            expect(try await fixture.status(pipeline).values.allSatisfy { $0.upToDate == 0 },
                #"fixture.status(pipeline).values.allSatisfy { $0.upToDate == 0 }"#)
            try await store.releaseLease(lease)
        },
    ]
}

