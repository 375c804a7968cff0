import Rederive

/// Every store applies ``RollbackRules`` and ``RollbackPlan``: the kept values are counted in runs
/// that changed values, a rollback whose values are gone fails and says why, a run in progress is
/// neither rolled back nor reset beside, only a later run that changed a record blocks its rollback,
/// each skipped entry gets the first reason in one order, and a record stored twice in one run goes
/// back to what it held before the first write.
enum RollbackRuleChecks {
    static let area = "rollback rules"

    static let all: [StoreCheck] = [
        StoreCheck(area, "runsThatFindNothingStaleUseUpNoneOfTheKeptValues") { fixture, expect in
            let pipeline = ConformancePipeline().pipeline
            try await fixture.seed(pipeline, count: 3)
            let first = try await fixture.run(pipeline)
            // More runs with nothing to do than the window holds, as cron or a deploy script makes them.
            for _ in 0..<(RollbackRules.defaultKeptRuns + 1) {
                expect.equal(try await fixture.run(pipeline).counts, RunCounts(), #"fixture.run(pipeline).counts"#)
            }
            let report = try await fixture.store.rollback(run: first.runID, pipelines: [pipeline])
            expect(report.restored.count == 9 && report.skipped.isEmpty,
                #"report.restored.count == 9 && report.skipped.isEmpty"#, "\(report)")
            expect(try await fixture.status(pipeline).values.allSatisfy { $0.upToDate == 0 },
                #"fixture.status(pipeline).values.allSatisfy { $0.upToDate == 0 }"#)
        },
        StoreCheck(area, "aRollbackWhoseValuesAreGoneFailsAndSaysWhy") { fixture, expect in
            try await fixture.seed(ConformancePipeline().pipeline, count: 2)
            let first = try await fixture.run(ConformancePipeline().pipeline)
            // As many later runs change values as the window holds: each scales `total` anew.
            var last = first
            for index in 1...RollbackRules.defaultKeptRuns {
                last = try await fixture.run(ConformancePipeline(totalVersion: index + 1, totalScale: Double(index + 1)).pipeline)
                expect.equal(last.counts.changed, 2, #"last.counts.changed"#)
            }
            let newest = ConformancePipeline(totalVersion: RollbackRules.defaultKeptRuns + 1, totalScale: Double(RollbackRules.defaultKeptRuns + 1)).pipeline

            let forgotten = await expect.throwsRederiveError {
                _ = try await fixture.store.rollback(run: first.runID, pipelines: [newest])
            }
            expect.equal(forgotten?.message.contains("run \(first.runID) "), true,
                #"forgotten?.message.contains("run \(first.runID) ")"#, "\(forgotten?.message ?? "")")
            expect.equal(forgotten?.message.contains("no longer kept"), true,
                #"forgotten?.message.contains("no longer kept")"#, "\(forgotten?.message ?? "")")

            let report = try await fixture.store.rollback(run: last.runID, pipelines: [newest])
            expect(report.restored.count == 2 && report.skipped.isEmpty,
                #"report.restored.count == 2 && report.skipped.isEmpty"#, "\(report)")
            let again = await expect.throwsRederiveError {
                _ = try await fixture.store.rollback(run: last.runID, pipelines: [newest])
            }
            expect.equal(again?.message.contains("rolled back already"), true,
                #"again?.message.contains("rolled back already")"#, "\(again?.message ?? "")")
        },
        StoreCheck(area, "aRunInProgressIsNeitherRolledBackNorResetBeside") { fixture, expect in
            let conformance = ConformancePipeline()
            let (store, pipeline, plan) = (fixture.store, conformance.pipeline, conformance.plan)
            try await fixture.seed(pipeline, count: 4)
            let earlier = try await fixture.run(pipeline)
            _ = try await store.invalidate(pipeline, processors: nil, keys: nil)
            // A run that has committed part of its work, and goes on.
            let lease = try await fixture.lease(7)
            let run = try await store.startRun([plan], lease: lease)
            let claimed = try await store.claim(plan, limit: 2, byteLimit: 1 << 20, lease: lease)
            _ = try await store.commit(ClaimChecks.derive(claimed, pipeline), plan: plan, runID: run.id, lease: lease)

            let own = await expect.throwsRederiveError {
                _ = try await store.rollback(run: run.id, pipelines: [pipeline])
            }
            expect.equal(own?.message.contains("run \(run.id) is still in progress"), true,
                #"own?.message.contains("run \(run.id) is still in progress")"#, "\(own?.message ?? "")")
            let beside = await expect.throwsRederiveError {
                _ = try await store.rollback(run: earlier.runID, pipelines: [pipeline])
            }
            expect.equal(beside?.message.contains("while run \(run.id) is in progress"), true,
                #"beside?.message.contains("while run \(run.id) is in progress")"#, "\(beside?.message ?? "")")
            let reset = await expect.throwsRederiveError {
                _ = try await store.reset(pipeline)
            }
            expect.equal(reset?.message.contains("while run \(run.id) is in progress"), true,
                #"reset?.message.contains("while run \(run.id) is in progress")"#, "\(reset?.message ?? "")")
            expect.equal(try await fixture.status(pipeline)["total"]?.upToDate, 2,
                #"fixture.status(pipeline)["total"]?.upToDate"#, "nothing was rolled back or reset")

            try await store.finishRun(run.id, status: .completed, counts: RunCounts(), lease: lease)
            try await store.releaseLease(lease)
            expect.equal(try await store.reset(pipeline), 4, #"store.reset(pipeline)"#)
        },
        StoreCheck(area, "aLaterRunThatDerivedTheSameValuesDoesNotBlockARollback") { fixture, expect in
            let pipeline = ConformancePipeline().pipeline
            try await fixture.seed(pipeline, count: 3)
            let first = try await fixture.run(pipeline)
            // As the demo does: one processor derives again, to the values it had.
            _ = try await fixture.store.invalidate(pipeline, processors: ["edges"], keys: nil)
            let second = try await fixture.run(pipeline)
            expect.equal(second.counts, RunCounts(unchanged: 3), #"second.counts"#)

            let report = try await fixture.store.rollback(run: first.runID, pipelines: [pipeline])
            expect(report.restored.count == 9 && report.skipped.isEmpty,
                #"report.restored.count == 9 && report.skipped.isEmpty"#, "\(report.skipped.map { $0.reason ?? "" })")
            expect(try await fixture.status(pipeline).values.allSatisfy { $0.upToDate == 0 },
                #"fixture.status(pipeline).values.allSatisfy { $0.upToDate == 0 }"#)
        },
        StoreCheck(area, "aRecordALaterRunChangedNamesTheNewestSuchRunToRollBackFirst") { fixture, expect in
            try await fixture.seed(ConformancePipeline().pipeline, count: 1)
            let first = try await fixture.run(ConformancePipeline().pipeline)
            let second = try await fixture.run(ConformancePipeline(totalVersion: 2, totalScale: 2).pipeline)
            let third = ConformancePipeline(totalVersion: 3, totalScale: 3).pipeline
            let last = try await fixture.run(third)

            let blocked = try await fixture.store.rollback(run: first.runID, pipelines: [third])
            expect.equal(blocked.skipped.map(\.processor), ["total"], #"blocked.skipped.map(\.processor)"#)
            expect.equal(blocked.skipped.first?.reason, "run \(last.runID) changed it again; roll that run back first",
                #"blocked.skipped.first?.reason"#)
            // Following the advice leads back to the first run.
            _ = try await fixture.store.rollback(run: last.runID, pipelines: [third])
            let middle = try await fixture.store.rollback(run: second.runID, pipelines: [third])
            expect.equal(middle.restored.map(\.processor), ["total"], #"middle.restored.map(\.processor)"#, "\(middle)")
            let report = try await fixture.store.rollback(run: first.runID, pipelines: [third])
            expect(report.restored.map(\.processor) == ["total"] && report.skipped.isEmpty,
                #"report.restored.map(\.processor) == ["total"] && report.skipped.isEmpty"#, "\(report)")
            expect.equal(try await fixture.values(of: "k0", ConformancePipeline().pipeline)?["total"], .null,
                #"fixture.values(of: "k0", ConformancePipeline().pipeline)?["total"]"#)
        },
        StoreCheck(area, "eachSkippedEntryIsReportedWithTheFirstReasonInOneOrder") { fixture, expect in
            let original = ConformancePipeline().pipeline
            try await fixture.seed(original, count: 4)
            try await fixture.run(original)
            // The run rolled back changes `total` and `size` of every record (small to big); a later run
            // changes `total` again, and `size` stays big.
            let rolledBack = try await fixture.run(ConformancePipeline(totalVersion: 2, totalScale: 10).pipeline)
            let later = try await fixture.run(ConformancePipeline(totalVersion: 3, totalScale: 100).pipeline)
            expect(rolledBack.counts == RunCounts(changed: 4) && later.counts == RunCounts(changed: 4),
                #"rolledBack.counts == RunCounts(changed: 4) && later.counts == RunCounts(changed: 4)"#)
            let ids = try await fixture.ids(original)
            let (k0, k1, k2, k3) = try (expect.require(ids["k0"], #"ids["k0"]"#), expect.require(ids["k1"], #"ids["k1"]"#), expect.require(ids["k2"], #"ids["k2"]"#), expect.require(ids["k3"],
                #"ids["k3"]"#))
            try await fixture.deleteRecord("k0", original)
            try await fixture.replace("k1", label: "s1", values: [9], in: original)
            try await fixture.removeStamp(k3, "total", original)
            try await fixture.removeStamp(k3, "size", original)

            // Rolled back as an app that no longer declares `size` names its pipeline.
            let pipeline = ConformancePipeline(totalVersion: 3, totalScale: 100, dropped: ["size"]).pipeline
            let report = try await fixture.store.rollback(run: rolledBack.runID, pipelines: [pipeline])
            let (run, newer) = (rolledBack.runID, later.runID)
            let changedAgain = "run \(newer) changed it again; roll that run back first"
            expect(report.restored.isEmpty, #"report.restored.isEmpty"#, "\(report)")
            expect.equal(report.skipped.map { "\($0.recordID) \($0.processor): \($0.reason ?? "")" }, [
                // Deleted, before a later change and a processor no longer declared.
                "\(k0) size: the record was deleted", "\(k0) total: the record was deleted",
                // A payload changed, before them too.
                "\(k1) size: its payload changed since run \(run)", "\(k1) total: its payload changed since run \(run)",
                // A later change, before a stamp removed; a processor no longer declared, last.
                "\(k2) size: the pipeline no longer has processor \"size\"", "\(k2) total: \(changedAgain)",
                "\(k3) size: its stamp was removed since run \(run)", "\(k3) total: \(changedAgain)",
            ], #"report.skipped.map { "\($0.recordID) \($0.processor): \($0.reason ?? "")" }"#)
            expect.equal(report.skipped.map(\.key), [nil, nil, "k1", "k1", "k2", "k2", "k3", "k3"], #"report.skipped.map(\.key)"#)
            expect.equal(try await fixture.values(of: "k2", original)?["total"], .real(500),
                #"fixture.values(of: "k2", original)?["total"]"#, "nothing was put back")
        },
        StoreCheck(area, "aRecordStoredTwiceInOneRunGoesBackToWhatItHeldBeforeTheRunsFirstWrite") { fixture, expect in
            let original = ConformancePipeline().pipeline
            try await fixture.seed(original, count: 1)
            try await fixture.run(original)
            // As a watcher's run does: it stores k0 (total 30, big), k0's payload changes, and the same
            // run stores it again (total 150, still big).
            let scaled = ConformancePipeline(totalVersion: 2, totalScale: 10)
            let (store, plan) = (fixture.store, scaled.plan)
            let lease = try await fixture.lease(11)
            let run = try await store.startRun([plan], lease: lease)
            func deriveOnce() async throws {
                let claimed = try await store.claim(plan, limit: 10, byteLimit: 1 << 20, lease: lease)
                expect.equal(claimed.count, 1, #"claimed.count"#)
                let outcome = try await store.commit(ClaimChecks.derive(claimed, scaled.pipeline), plan: plan, runID: run.id, lease: lease)
                expect.equal(outcome.counts, RunCounts(changed: 1), #"outcome.counts"#)
            }
            try await deriveOnce()
            try await fixture.replace("k0", label: "s0", values: [5, 5, 5], in: original)
            // A store whose claims reach the end and look from the start again needs no restart.
            store.changeSignaling?.restartClaims(plan, lease: lease)
            try await deriveOnce()
            expect.equal(try await fixture.values(of: "k0", original)?["total"], .real(150),
                #"fixture.values(of: "k0", original)?["total"]"#)
            try await store.finishRun(run.id, status: .completed, counts: RunCounts(changed: 2), lease: lease)
            try await store.releaseLease(lease)

            try await expectRolledBackToTheOriginal(run.id, scaled.pipeline, original, fixture, expect)
            // What it holds again was derived from the payload before: stale, to derive again.
            let status = try await fixture.status(original)
            expect(status["total"]?.stale == 1 && status["size"]?.stale == 1 && status["edges"]?.upToDate == 1,
                #"status["total"]?.stale == 1 && status["size"]?.stale == 1 && status["edges"]?.upToDate == 1"#)
        },
        StoreCheck(area, "aRecordStoredTwiceInOneCommitGoesBackToWhatItHeldBeforeTheFirstResult") { fixture, expect in
            let original = ConformancePipeline().pipeline
            try await fixture.seed(original, count: 1)
            try await fixture.run(original)
            let (store, plan) = (fixture.store, ConformancePipeline(totalVersion: 2, totalScale: 10).plan)
            let lease = try await fixture.lease(12)
            let run = try await store.startRun([plan], lease: lease)
            let claimed = try await store.claim(plan, limit: 10, byteLimit: 1 << 20, lease: lease)
            // Two results for k0 in one batch: total 30, then 60.
            let results = ClaimChecks.derive(claimed, plan.pipeline)
                + ClaimChecks.derive(claimed, ConformancePipeline(totalVersion: 2, totalScale: 20).pipeline)
            expect.equal(try await store.commit(results, plan: plan, runID: run.id, lease: lease).counts, RunCounts(changed: 2),
                #"store.commit(results, plan: plan, runID: run.id, lease: lease).counts"#)
            expect.equal(try await fixture.values(of: "k0", original)?["total"], .real(60),
                #"fixture.values(of: "k0", original)?["total"]"#)
            try await store.finishRun(run.id, status: .completed, counts: RunCounts(changed: 2), lease: lease)
            try await store.releaseLease(lease)

            try await expectRolledBackToTheOriginal(run.id, plan.pipeline, original, fixture, expect)
            expect(try await fixture.status(original).values.allSatisfy { $0.upToDate == 1 },
                #"fixture.status(original).values.allSatisfy { $0.upToDate == 1 }"#, "the payload did not change")
        },
    ]

    /// Rolls back `run`, which stored `k0` twice with `pipeline`, and expects both of its values to be
    /// what `original` derived before the run.
    private static func expectRolledBackToTheOriginal(
        _ run: Int64, _ pipeline: Pipeline, _ original: Pipeline, _ fixture: CheckedFixture, _ expect: Expectations
    ) async throws {
        let report = try await fixture.store.rollback(run: run, pipelines: [pipeline])
        expect(report.restored.map(\.processor) == ["size", "total"] && report.skipped.isEmpty,
            #"report.restored.map(\.processor) == ["size", "total"] && report.skipped.isEmpty"#, "\(report)")
        let values = try await fixture.values(of: "k0", original)
        expect(values?["total"] == .real(3) && values?["size"] == .text("small"),
            #"values?["total"] == .real(3) && values?["size"] == .text("small")"#, "\(values ?? [:])")
    }
}
