import Rederive

/// Every store finds the same records stale: after a version bump only that processor's, after a
/// payload change every processor's, and after an input changes, its dependents', only where the
/// input's values changed.
enum StalenessChecks {
    static let area = "staleness"

    static let all: [StoreCheck] = [
        StoreCheck(area, "aVersionBumpMakesOnlyThatProcessorStale") { fixture, expect in
            try await fixture.seed(ConformancePipeline().pipeline, count: 4)
            _ = try await fixture.run(ConformancePipeline().pipeline)

            let bumped = ConformancePipeline(totalVersion: 2)
            let status = try await fixture.status(bumped.pipeline)
            expect.equal(status["total"]?.stale, 4, #"status["total"]?.stale"#)
            expect.equal(status["edges"]?.upToDate, 4, #"status["edges"]?.upToDate"#)
            expect.equal(status["size"]?.upToDate, 4, #"status["size"]?.upToDate"#)
            expect.equal(try await fixture.store.staleCount(bumped.plan), 4, #"fixture.store.staleCount(bumped.plan)"#)
            let pending = try await fixture.store.staleRecords(bumped.plan, after: nil, limit: 10, byteLimit: 1 << 20)
            expect.equal(pending.count, 4, #"pending.count"#)
            expect(pending.allSatisfy { $0.staleProcessors == [ConformancePipeline.total] && $0.payload != nil },
                #"pending.allSatisfy { $0.staleProcessors == [ConformancePipeline.total] && $0.payload != nil }"#)
            // `size` watches its input: it derives again only if `total`'s values change.
            expect(pending.allSatisfy { $0.dependencies.watching == [ConformancePipeline.size] },
                #"pending.allSatisfy { $0.dependencies.watching == [ConformancePipeline.size] }"#)
            expect(pending.allSatisfy { $0.dependencies.consumedDigests[ConformancePipeline.size] != nil },
                #"pending.allSatisfy { $0.dependencies.consumedDigests[ConformancePipeline.size] != nil }"#)

            let summary = try await fixture.run(bumped.pipeline)
            expect.equal(summary.counts, RunCounts(unchanged: 4), #"summary.counts"#)
            expect.equal(bumped.derivations["total"], 4, #"bumped.derivations["total"]"#)
            expect.equal(bumped.derivations["edges"], 0, #"bumped.derivations["edges"]"#)
            expect.equal(bumped.derivations["size"], 0, #"bumped.derivations["size"]"#)
            expect.equal(try await fixture.store.staleCount(bumped.plan), 0, #"fixture.store.staleCount(bumped.plan)"#)
        },
        // A watcher tells a backlog from fresh records by the store's counts: records whose values are
        // current at another version are in the backlog; new, rewritten and invalidated ones are not.
        StoreCheck(area, needs: .changeSignals, "theBacklogCountsRecordsCurrentAtAnotherVersion") { fixture, expect in
            let signaling = try expect.require(fixture.store.changeSignaling, "the store's change signaling")
            let first = ConformancePipeline()
            try await fixture.seed(first.pipeline, count: 4)
            expect.equal(try await signaling.backlogCount(first.plan), 0, #"signaling.backlogCount(first.plan)"#, "new records are fresh")
            _ = try await fixture.run(first.pipeline)

            let bumped = ConformancePipeline(totalVersion: 2)
            expect.equal(try await signaling.backlogCount(bumped.plan), 4, #"signaling.backlogCount(bumped.plan)"#)
            expect.equal(try await signaling.backlogCount(first.plan), 0, #"signaling.backlogCount(first.plan)"#)
            expect.equal(try await signaling.backlogCount(bumped.plan.restricted(to: .backlog)), 4,
                #"signaling.backlogCount(bumped.plan.restricted(to: .backlog))"#)
            try await fixture.replace("k2", label: "s2", values: [20], in: bumped.pipeline)
            expect.equal(try await signaling.backlogCount(bumped.plan), 3,
                #"signaling.backlogCount(bumped.plan)"#, "a rewritten record is fresh")
            _ = try await fixture.run(bumped.pipeline)
            expect.equal(try await signaling.backlogCount(bumped.plan), 0, #"signaling.backlogCount(bumped.plan)"#)
        },
        // A watcher drains two lanes side by side, processor by processor: the fresh lane has no
        // current stamp (new, rewritten or invalidated), the backlog one of another version. Each
        // lane hands out its own, and claims keep to it.
        StoreCheck(area, "eachLaneHandsOutTheRecordsAndProcessorsOfItsOwn") { fixture, expect in
            let first = ConformancePipeline()
            try await fixture.seed(first.pipeline, count: 4)
            _ = try await fixture.run(first.pipeline)
            let bumped = ConformancePipeline(totalVersion: 2)
            try await fixture.replace("k2", label: "s2", values: [20], in: bumped.pipeline)
            _ = try await fixture.importPayloads([("k4", ConformancePipeline.item("s4", [4]))], bumped.pipeline)
            expect.equal(try await fixture.store.invalidate(bumped.pipeline, processors: ["edges"], keys: ["k3"]), 1,
                #"fixture.store.invalidate(bumped.pipeline, processors: ["edges"], keys: ["k3"])"#)
            let ids = try await fixture.ids(bumped.pipeline)
            func listed(_ lane: StaleLane) async throws -> [Int64: [Int]] {
                let records = try await fixture.store.staleRecords(bumped.plan.restricted(to: lane), after: nil, limit: 10, byteLimit: 1 << 20)
                return Dictionary(records.map { ($0.recordID, $0.staleProcessors) }, uniquingKeysWith: { first, _ in first })
            }
            func byID(_ stale: [String: [Int]]) -> [Int64: [Int]] {
                Dictionary(uniqueKeysWithValues: stale.compactMap { key, processors in ids[key].map { ($0, processors) } })
            }
            let (total, edges, size) = (ConformancePipeline.total, ConformancePipeline.edges, ConformancePipeline.size)
            expect.equal(try await listed(.backlog), byID(["k0": [total], "k1": [total], "k3": [total]]), #"listed(.backlog)"#)
            expect.equal(try await listed(.fresh), byID(["k2": [total, edges, size], "k3": [edges], "k4": [total, edges, size]]),
                #"listed(.fresh)"#)
            expect.equal(try await listed(.all), byID(["k0": [total], "k1": [total], "k2": [total, edges, size], "k3": [total, edges],
                "k4": [total, edges, size]]), #"listed(.all)"#)

            let lease = try await fixture.lease(1)
            let run = try await fixture.store.startRun([bumped.plan], lease: lease)
            let claimed = try await fixture.store.claim(bumped.plan.restricted(to: .fresh), limit: 10, byteLimit: 1 << 20, lease: lease)
            expect.equal(claimed.map(\.recordID), [ids["k2"], ids["k3"], ids["k4"]].compactMap { $0 }, #"claimed.map(\.recordID)"#)
            try await fixture.store.finishRun(run.id, status: .completed, counts: RunCounts(), lease: lease)
            try await fixture.store.releaseLease(lease)
        },
        StoreCheck(area, "aPayloadChangeMakesItsRecordStaleForEveryProcessor") { fixture, expect in
            let conformance = ConformancePipeline()
            let pipeline = conformance.pipeline
            try await fixture.seed(pipeline, count: 3)
            _ = try await fixture.run(pipeline)
            // The same bytes again change nothing.
            expect.equal(try await fixture.importPayloads([("k2", ConformancePipeline.item("s2", [2, 1, 2]))], pipeline), ImportCounts(unchanged: 1),
                #"fixture.importPayloads([("k2", ConformancePipeline.item("s2", [2, 1, 2]))], pipeline)"#)
            expect.equal(try await fixture.store.staleCount(conformance.plan), 0, #"fixture.store.staleCount(conformance.plan)"#)

            try await fixture.replace("k2", label: "s2", values: [20], in: pipeline)
            let status = try await fixture.status(pipeline)
            expect(status.values.allSatisfy { $0.upToDate == 2 && $0.stale == 1 },
                #"status.values.allSatisfy { $0.upToDate == 2 && $0.stale == 1 }"#)
            let pending = try await fixture.store.staleRecords(conformance.plan, after: nil, limit: 10, byteLimit: 1 << 20)
            expect.equal(pending.map(\.recordID), [try await fixture.ids(pipeline)["k2"]], #"pending.map(\.recordID)"#)
            expect.equal(pending.first?.staleProcessors, [0, 1, 2], #"pending.first?.staleProcessors"#)

            conformance.derivations.reset()
            let summary = try await fixture.run(pipeline)
            expect.equal(summary.counts, RunCounts(changed: 1), #"summary.counts"#)
            expect(conformance.derivations["total"] == 1 && conformance.derivations["size"] == 1,
                #"conformance.derivations["total"] == 1 && conformance.derivations["size"] == 1"#)
            expect.equal(try await fixture.values(of: "k2", pipeline)?["size"], .text("big"),
                #"fixture.values(of: "k2", pipeline)?["size"]"#)
        },
        StoreCheck(area, "anInputWhoseValuesChangeMakesItsDependentsDeriveAgain") { fixture, expect in
            try await fixture.seed(ConformancePipeline().pipeline, count: 4)
            _ = try await fixture.run(ConformancePipeline().pipeline)
            expect.equal(try await fixture.values(of: "k3", ConformancePipeline().pipeline)?["size"], .text("small"),
                #"fixture.values(of: "k3", ConformancePipeline().pipeline)?["size"]"#)

            // Totals grow tenfold: k0 (3 → 30), k1 (4 → 40), k2 (5 → 50), k3 (6 → 60) all become big.
            let scaled = ConformancePipeline(totalVersion: 2, totalScale: 10)
            let summary = try await fixture.run(scaled.pipeline)
            expect.equal(summary.counts, RunCounts(changed: 4), #"summary.counts"#)
            expect.equal(scaled.derivations["size"], 4, #"scaled.derivations["size"]"#)
            expect.equal(try await fixture.values(of: "k3", scaled.pipeline)?["size"], .text("big"),
                #"fixture.values(of: "k3", scaled.pipeline)?["size"]"#)
            expect(try await fixture.status(scaled.pipeline).values.allSatisfy { $0.upToDate == 4 },
                #"fixture.status(scaled.pipeline).values.allSatisfy { $0.upToDate == 4 }"#)
        },
        StoreCheck(area, "aDependentAloneStaleIsHandedOutWithoutItsPayload") { fixture, expect in
            try await fixture.seed(ConformancePipeline().pipeline, count: 3)
            _ = try await fixture.run(ConformancePipeline().pipeline)

            let bumped = ConformancePipeline(sizeVersion: 2)
            let pending = try await fixture.store.staleRecords(bumped.plan, after: nil, limit: 10, byteLimit: 1 << 20)
            expect.equal(pending.count, 3, #"pending.count"#)
            for record in pending {
                expect.equal(record.staleProcessors, [ConformancePipeline.size], #"record.staleProcessors"#)
                expect.equal(record.input, .notRead, #"record.input"#)
                expect.equal(record.payload, nil, #"record.payload"#)
                // What `size` reads: `total`'s stored value.
                expect.equal(record.dependencies.storedValues[ConformancePipeline.total]?.count, 1,
                    #"record.dependencies.storedValues[ConformancePipeline.total]?.count"#)
            }
            let totals = pending.compactMap { $0.dependencies.storedValues[ConformancePipeline.total]?.first }
            expect.equal(Set(totals), [.real(3), .real(4), .real(5)], #"Set(totals)"#)

            let summary = try await fixture.run(bumped.pipeline)
            expect.equal(summary.counts, RunCounts(unchanged: 3), #"summary.counts"#)
            expect(bumped.derivations["size"] == 3 && bumped.derivations["total"] == 0,
                #"bumped.derivations["size"] == 3 && bumped.derivations["total"] == 0"#)
        },
        StoreCheck(area, "invalidatingMarksTheRecordsAndProcessorsNamed") { fixture, expect in
            let conformance = ConformancePipeline()
            let pipeline = conformance.pipeline
            try await fixture.seed(pipeline, count: 4)
            _ = try await fixture.run(pipeline)

            expect.equal(try await fixture.store.invalidate(pipeline, processors: ["edges"], keys: ["k1", "k3"]), 2,
                #"fixture.store.invalidate(pipeline, processors: ["edges"], keys: ["k1", "k3"])"#)
            let status = try await fixture.status(pipeline)
            expect(status["edges"]?.stale == 2 && status["total"]?.stale == 0 && status["size"]?.stale == 0,
                #"status["edges"]?.stale == 2 && status["total"]?.stale == 0 && status["size"]?.stale == 0"#)
            let ids = try await fixture.ids(pipeline)
            let pending = try await fixture.store.staleRecords(conformance.plan, after: nil, limit: 10, byteLimit: 1 << 20)
            expect.equal(pending.map(\.recordID), [ids["k1"], ids["k3"]].compactMap { $0 }, #"pending.map(\.recordID)"#)
            // After a cursor, only later records.
            let later = try await fixture.store.staleRecords(conformance.plan, after: ids["k1"], limit: 10, byteLimit: 1 << 20)
            expect.equal(later.map(\.recordID), [ids["k3"]].compactMap { $0 }, #"later.map(\.recordID)"#)

            let unknownProcessor = await expect.throwsRederiveError {
                _ = try await fixture.store.invalidate(pipeline, processors: ["nope"], keys: nil)
            }
            expect.equal(unknownProcessor?.code, .unknownName, #"unknownProcessor?.code"#)
            let unknownKey = await expect.throwsRederiveError {
                _ = try await fixture.store.invalidate(pipeline, processors: nil, keys: ["k1", "missing"])
            }
            expect.equal(unknownKey?.code, .unknownName, #"unknownKey?.code"#)
            expect.equal(try await fixture.status(pipeline)["total"]?.stale, 0,
                #"fixture.status(pipeline)["total"]?.stale"#, "a refused invalidation marks nothing")
        },
    ]
}

