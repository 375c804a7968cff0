import Rederive
import RederiveCodec

/// Every store hands each pending record out once, fences commits by the lease and by the record's
/// payload generation, and lets a lease that expired be taken over.
enum ClaimChecks {
    static let area = "claims, leases and fencing"

    static let all: [StoreCheck] = [
        StoreCheck(area, "aLeaseClaimsEachPendingRecordOnce") { fixture, expect in
            let conformance = ConformancePipeline()
            let (store, pipeline, plan) = (fixture.store, conformance.pipeline, conformance.plan)
            try await fixture.seed(pipeline, count: 7)
            let lease = try await fixture.lease(1)
            let run = try await store.startRun([plan], lease: lease)
            expect.equal(run.pending, [7], #"run.pending"#)

            var claimed: [Int64] = []
            while true {
                let batch = try await store.claim(plan, limit: 3, byteLimit: 1 << 20, lease: lease)
                if batch.isEmpty { break }
                expect(batch.count <= 3, #"batch.count <= 3"#)
                expect(batch.allSatisfy { $0.staleProcessors == plan.selection && $0.payload != nil },
                    #"batch.allSatisfy { $0.staleProcessors == plan.selection && $0.payload != nil }"#)
                claimed += batch.map(\.recordID)
                expect(claimed.count <= 7, #"claimed.count <= 7"#, "a record was handed out twice: \(claimed)")
                if claimed.count > 7 { break }
            }
            expect.equal(claimed.sorted(), Array(try await fixture.ids(pipeline).values).sorted(), #"claimed.sorted()"#)
            expect.equal(Set(claimed).count, claimed.count, #"Set(claimed).count"#)
            try await store.finishRun(run.id, status: .completed, counts: RunCounts(), lease: lease)
            try await store.releaseLease(lease)
        },
        StoreCheck(area, "aClaimEndsOnceItsPayloadsHoldTheByteLimit") { fixture, expect in
            let conformance = ConformancePipeline()
            let (store, pipeline, plan) = (fixture.store, conformance.pipeline, conformance.plan)
            try await fixture.seed(pipeline, count: 4)
            let lease = try await fixture.lease(1)
            let run = try await store.startRun([plan], lease: lease)
            // Every payload is larger than the limit: one record a claim, never none.
            let first = try await store.claim(plan, limit: 4, byteLimit: 1, lease: lease)
            expect.equal(first.count, 1, #"first.count"#)
            let rest = try await store.claim(plan, limit: 4, byteLimit: 1 << 20, lease: lease)
            expect.equal(rest.count, 3, #"rest.count"#)
            expect(Set(first.map(\.recordID)).isDisjoint(with: rest.map(\.recordID)),
                #"Set(first.map(\.recordID)).isDisjoint(with: rest.map(\.recordID))"#)
            try await store.finishRun(run.id, status: .completed, counts: RunCounts(), lease: lease)
            try await store.releaseLease(lease)
        },
        StoreCheck(area, "aSecondLeaseIsRefusedOrClaimsOtherRecords") { fixture, expect in
            let conformance = ConformancePipeline()
            let (store, pipeline, plan) = (fixture.store, conformance.pipeline, conformance.plan)
            try await fixture.seed(pipeline, count: 6)
            let first = try await fixture.lease(1)
            let run = try await store.startRun([plan], lease: first)
            let held = try await store.claim(plan, limit: 3, byteLimit: 1 << 20, lease: first)
            expect.equal(held.count, 3, #"held.count"#)
            let committed = try await store.commit(ClaimChecks.derive([held[0]], pipeline), plan: plan, runID: run.id, lease: first).counts
            expect.equal(committed, RunCounts(changed: 1), #"committed"#)
            let second = try await store.acquireLease(for: WorkerIdentity(host: "conformance", processID: 2), duration: .seconds(30))
            switch second {
            case .held(let holder):
                // One process derives at a time: the first lease is named as the holder.
                expect(!fixture.sharesDerivation, #"!fixture.sharesDerivation"#)
                expect(holder.worker.contains("pid 1"), #"holder.worker.contains("pid 1")"#)
                expect(holder.expiresIn > 0, #"holder.expiresIn > 0"#)
            case .acquired(let lease):
                expect(fixture.sharesDerivation, #"fixture.sharesDerivation"#)
                // It joins the run the first lease derives, with what is left of its count.
                let joined = try await store.startRun([plan], lease: lease)
                expect.equal(joined, StartedRun(id: run.id, pending: [5]), #"joined"#)
                let others = try await store.claim(plan, limit: 6, byteLimit: 1 << 20, lease: lease)
                expect.equal(others.count, 3, #"others.count"#)
                expect(Set(others.map(\.recordID)).isDisjoint(with: held.map(\.recordID)),
                    #"Set(others.map(\.recordID)).isDisjoint(with: held.map(\.recordID))"#)
                // The run ends when its last live lease leaves it.
                try await store.finishRun(run.id, status: .completed, counts: RunCounts(), lease: lease)
                expect.equal(try await store.runs(limit: 1).first?.status, .running, #"store.runs(limit: 1).first?.status"#)
                try await store.releaseLease(lease)
            }
            try await store.finishRun(run.id, status: .completed, counts: committed, lease: first)
            let newest = try await store.runs(limit: 1).first
            expect.equal(newest?.id, run.id, #"store.runs(limit: 1).first?.id"#)
            expect.equal(newest?.status, .completed, #"store.runs(limit: 1).first?.status"#)
            try await store.releaseLease(first)
        },
        // Right after its lease was reaped, before another lease claimed its records, a commit stores nothing.
        StoreCheck(area, "aCommitUnderALeaseTakenOverThrowsAndStoresNothing") { fixture, expect in
            let conformance = ConformancePipeline()
            let (store, pipeline, plan) = (fixture.store, conformance.pipeline, conformance.plan)
            try await fixture.seed(pipeline, count: 3)
            let lost = try await fixture.lease(1, lasting: .milliseconds(300))
            let run = try await store.startRun([plan], lease: lost)
            let claimed = try await store.claim(plan, limit: 3, byteLimit: 1 << 20, lease: lost)
            expect.equal(claimed.count, 3, #"claimed.count"#)
            let results = ClaimChecks.derive(claimed, pipeline)
            try await Task.sleep(for: .milliseconds(700))

            // Another process takes over once the lease expired; it reaps the expired one.
            let taker = try await fixture.lease(2)
            let fenced = await expect.throwsRederiveError {
                _ = try await store.commit(results, plan: plan, runID: run.id, lease: lost)
            }
            expect.equal(fenced?.code, .leaseLost, #"fenced?.code"#)
            expect.equal(try await fixture.status(pipeline)["total"]?.upToDate, 0, #"fixture.status(pipeline)["total"]?.upToDate"#)
            let renewal = await expect.throwsRederiveError { try await store.renewLease(lost) }
            expect.equal(renewal?.code, .leaseLost, #"renewal?.code"#)

            // The records the lost lease held are the taker's to derive.
            let takerRun = try await store.startRun([plan], lease: taker)
            var taken: [PendingRecord] = []
            while true {
                let batch = try await store.claim(plan, limit: 3, byteLimit: 1 << 20, lease: taker)
                if batch.isEmpty { break }
                taken += batch
            }
            expect.equal(Set(taken.map(\.recordID)), Set(claimed.map(\.recordID)), #"Set(taken.map(\.recordID))"#)
            let counts = try await store.commit(ClaimChecks.derive(taken, pipeline), plan: plan, runID: takerRun.id, lease: taker).counts
            expect.equal(counts, RunCounts(changed: 3), #"counts"#)
            expect.equal(try await fixture.status(pipeline)["total"]?.upToDate, 3, #"fixture.status(pipeline)["total"]?.upToDate"#)
            try await store.finishRun(takerRun.id, status: .completed, counts: counts, lease: taker)
            try await store.releaseLease(taker)
        },
        StoreCheck(area, "anExpiredLeaseNobodyTookOverStillCommits") { fixture, expect in
            let conformance = ConformancePipeline()
            let (store, pipeline, plan) = (fixture.store, conformance.pipeline, conformance.plan)
            try await fixture.seed(pipeline, count: 2)
            let lease = try await fixture.lease(1, lasting: .milliseconds(300))
            let run = try await store.startRun([plan], lease: lease)
            let claimed = try await store.claim(plan, limit: 2, byteLimit: 1 << 20, lease: lease)
            try await Task.sleep(for: .milliseconds(700))
            let counts = try await store.commit(ClaimChecks.derive(claimed, pipeline), plan: plan, runID: run.id, lease: lease).counts
            expect.equal(counts, RunCounts(changed: 2), #"counts"#)
            expect.equal(try await fixture.status(pipeline)["total"]?.upToDate, 2, #"fixture.status(pipeline)["total"]?.upToDate"#)
            try await store.renewLease(lease)
            try await store.finishRun(run.id, status: .completed, counts: counts, lease: lease)
            try await store.releaseLease(lease)
        },
        StoreCheck(area, "aResultReadBeforeItsPayloadChangedOrItsRecordWasDeletedIsSkipped") { fixture, expect in
            let conformance = ConformancePipeline()
            let (store, pipeline, plan) = (fixture.store, conformance.pipeline, conformance.plan)
            try await fixture.seed(pipeline, count: 3)
            let lease = try await fixture.lease(1)
            let run = try await store.startRun([plan], lease: lease)
            let claimed = try await store.claim(plan, limit: 3, byteLimit: 1 << 20, lease: lease)
            expect.equal(claimed.count, 3, #"claimed.count"#)
            let ids = try await fixture.ids(pipeline)
            try await fixture.replace("k0", label: "changed", values: [50], in: pipeline)
            try await fixture.deleteRecord("k1", pipeline)

            let counts = try await store.commit(ClaimChecks.derive(claimed, pipeline), plan: plan, runID: run.id, lease: lease).counts
            expect.equal(counts, RunCounts(changed: 1, skipped: 2), #"counts"#)
            let status = try await fixture.status(pipeline)
            expect.equal(status["total"]?.records, 2, #"status["total"]?.records"#)
            expect.equal(status["total"]?.upToDate, 1, #"status["total"]?.upToDate"#)
            expect.equal(try await store.staleCount(plan), 1, #"store.staleCount(plan)"#)
            let pending = try await store.staleRecords(plan, after: nil, limit: 10, byteLimit: 1 << 20)
            expect.equal(pending.map(\.recordID), [ids["k0"]], #"pending.map(\.recordID)"#)
            expect.equal(pending.first?.payload, ConformancePipeline.item("changed", [50]), #"pending.first?.payload"#)
            try await store.finishRun(run.id, status: .completed, counts: counts, lease: lease)
            try await store.releaseLease(lease)
        },
        StoreCheck(area, "aRunDoesNotClaimAgainWhatItCommitted") { fixture, expect in
            let conformance = ConformancePipeline()
            let pipeline = conformance.pipeline
            let plan = RunPlan(pipeline: pipeline, retryFailed: true)
            try await fixture.seed(pipeline, count: 2, label: { $0 == 1 ? "explode" : "s\($0)" })
            let first = try await fixture.lease(1)
            let run = try await fixture.store.startRun([plan], lease: first)
            let claimed = try await fixture.store.claim(plan, limit: 10, byteLimit: 1 << 20, lease: first)
            let counts = try await fixture.store.commit(ClaimChecks.derive(claimed, pipeline), plan: plan, runID: run.id, lease: first).counts
            expect.equal(counts, RunCounts(changed: 1, failed: 1), #"counts"#)
            // A failure retried is stale still, but this run is done with it.
            expect.equal(try await fixture.store.staleCount(plan), 1, #"fixture.store.staleCount(plan)"#)
            expect(try await fixture.store.claim(plan, limit: 10, byteLimit: 1 << 20, lease: first).isEmpty,
                #"fixture.store.claim(plan, limit: 10, byteLimit: 1 << 20, lease: first).isEmpty"#)
            try await fixture.store.finishRun(run.id, status: .completed, counts: counts, lease: first)
            try await fixture.store.releaseLease(first)

            let second = try await fixture.lease(2)
            let next = try await fixture.store.startRun([plan], lease: second)
            expect.equal(next.pending, [1], #"next.pending"#)
            let again = try await fixture.store.claim(plan, limit: 10, byteLimit: 1 << 20, lease: second)
            expect.equal(again.map(\.recordID), [try await fixture.ids(pipeline)["k1"]], #"again.map(\.recordID)"#)
            try await fixture.store.releaseLease(second)
        },
    ]

    /// Derives claimed records as a runner's worker does.
    static func derive(_ records: [PendingRecord], _ pipeline: Pipeline) -> [RecordResult] {
        records.map { RecordResult(evaluating: $0, pipeline: pipeline, codec: PayloadCodec()) }
    }
}

