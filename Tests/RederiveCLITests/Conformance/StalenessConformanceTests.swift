import Foundation
import Rederive
import Testing

/// Every store finds the same records stale: after a version bump only that processor's, after a
/// payload change every processor's, and after an input changes, its dependents', only where the
/// input's values changed.
@Suite("Store conformance: staleness", .timeLimit(.minutes(5)))
struct StalenessConformanceTests {
    @Test(arguments: StoreUnderTest.all)
    func aVersionBumpMakesOnlyThatProcessorStale(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            try await fixture.seed(ConformancePipeline().pipeline, count: 4)
            _ = try await fixture.run(ConformancePipeline().pipeline)

            let bumped = ConformancePipeline(totalVersion: 2)
            let status = try await fixture.status(bumped.pipeline)
            #expect(status["total"]?.stale == 4)
            #expect(status["edges"]?.upToDate == 4)
            #expect(status["size"]?.upToDate == 4)
            #expect(try await fixture.store.pendingCount(bumped.plan) == 4)
            let pending = try await fixture.store.pendingRecords(bumped.plan, after: nil, limit: 10, byteLimit: 1 << 20)
            #expect(pending.count == 4)
            #expect(pending.allSatisfy { $0.staleProcessors == [ConformancePipeline.total] && $0.payloadRead })
            // `size` watches its input: it derives again only if `total`'s values change.
            #expect(pending.allSatisfy { $0.dependencies.watching == [ConformancePipeline.size] })
            #expect(pending.allSatisfy { $0.dependencies.consumedDigests[ConformancePipeline.size] != nil })

            let summary = try await fixture.run(bumped.pipeline)
            #expect(summary.counts == RunCounts(unchanged: 4))
            #expect(bumped.derivations["total"] == 4)
            #expect(bumped.derivations["edges"] == 0)
            #expect(bumped.derivations["size"] == 0)
            #expect(try await fixture.store.pendingCount(bumped.plan) == 0)
        }
    }

    /// A watcher tells a backlog from fresh records by the store's counts: records whose values are
    /// current at another version are in the backlog; new, rewritten and invalidated ones are not.
    @Test(arguments: StoreUnderTest.all)
    func theBacklogCountsRecordsCurrentAtAnotherVersion(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let signaling = try #require(fixture.store as? any ChangeSignaling)
            let first = ConformancePipeline()
            try await fixture.seed(first.pipeline, count: 4)
            #expect(try await signaling.backlogCount(first.plan) == 0, "new records are fresh")
            _ = try await fixture.run(first.pipeline)

            let bumped = ConformancePipeline(totalVersion: 2)
            #expect(try await signaling.backlogCount(bumped.plan) == 4)
            #expect(try await signaling.backlogCount(first.plan) == 0)
            #expect(try await signaling.backlogCount(bumped.plan.restricted(to: .backlog)) == 4)
            try await fixture.replace("k2", label: "s2", values: [20], in: bumped.pipeline)
            #expect(try await signaling.backlogCount(bumped.plan) == 3, "a rewritten record is fresh")
            _ = try await fixture.run(bumped.pipeline)
            #expect(try await signaling.backlogCount(bumped.plan) == 0)
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func aPayloadChangeMakesItsRecordStaleForEveryProcessor(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let conformance = ConformancePipeline()
            let pipeline = conformance.pipeline
            try await fixture.seed(pipeline, count: 3)
            _ = try await fixture.run(pipeline)
            // The same bytes again change nothing.
            #expect(try await fixture.importPayloads([("k2", ConformancePipeline.item("s2", [2, 1, 2]))], pipeline) == ImportCounts(unchanged: 1))
            #expect(try await fixture.store.pendingCount(conformance.plan) == 0)

            try await fixture.replace("k2", label: "s2", values: [20], in: pipeline)
            let status = try await fixture.status(pipeline)
            #expect(status.values.allSatisfy { $0.upToDate == 2 && $0.stale == 1 })
            let pending = try await fixture.store.pendingRecords(conformance.plan, after: nil, limit: 10, byteLimit: 1 << 20)
            #expect(pending.map(\.recordID) == [try await fixture.ids(pipeline)["k2"]])
            #expect(pending.first?.staleProcessors == [0, 1, 2])

            conformance.derivations.reset()
            let summary = try await fixture.run(pipeline)
            #expect(summary.counts == RunCounts(derived: 1))
            #expect(conformance.derivations["total"] == 1 && conformance.derivations["size"] == 1)
            #expect(try await fixture.values(of: "k2", pipeline)?["size"] == .text("big"))
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func anInputWhoseValuesChangeMakesItsDependentsDeriveAgain(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            try await fixture.seed(ConformancePipeline().pipeline, count: 4)
            _ = try await fixture.run(ConformancePipeline().pipeline)
            #expect(try await fixture.values(of: "k3", ConformancePipeline().pipeline)?["size"] == .text("small"))

            // Totals grow tenfold: k0 (3 → 30), k1 (4 → 40), k2 (5 → 50), k3 (6 → 60) all become big.
            let scaled = ConformancePipeline(totalVersion: 2, totalScale: 10)
            let summary = try await fixture.run(scaled.pipeline)
            #expect(summary.counts == RunCounts(derived: 4))
            #expect(scaled.derivations["size"] == 4)
            #expect(try await fixture.values(of: "k3", scaled.pipeline)?["size"] == .text("big"))
            #expect(try await fixture.status(scaled.pipeline).values.allSatisfy { $0.upToDate == 4 })
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func aDependentAloneStaleIsHandedOutWithoutItsPayload(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            try await fixture.seed(ConformancePipeline().pipeline, count: 3)
            _ = try await fixture.run(ConformancePipeline().pipeline)

            let bumped = ConformancePipeline(sizeVersion: 2)
            let pending = try await fixture.store.pendingRecords(bumped.plan, after: nil, limit: 10, byteLimit: 1 << 20)
            #expect(pending.count == 3)
            for record in pending {
                #expect(record.staleProcessors == [ConformancePipeline.size])
                #expect(!record.payloadRead)
                #expect(record.payload == nil)
                // What `size` reads: `total`'s stored value.
                #expect(record.dependencies.storedValues[ConformancePipeline.total]?.count == 1)
            }
            let totals = pending.compactMap { $0.dependencies.storedValues[ConformancePipeline.total]?.first }
            #expect(Set(totals) == [.real(3), .real(4), .real(5)])

            let summary = try await fixture.run(bumped.pipeline)
            #expect(summary.counts == RunCounts(unchanged: 3))
            #expect(bumped.derivations["size"] == 3 && bumped.derivations["total"] == 0)
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func invalidatingMarksTheRecordsAndProcessorsNamed(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let conformance = ConformancePipeline()
            let pipeline = conformance.pipeline
            try await fixture.seed(pipeline, count: 4)
            _ = try await fixture.run(pipeline)

            #expect(try await fixture.store.invalidate(pipeline, processors: ["edges"], keys: ["k1", "k3"]) == 2)
            let status = try await fixture.status(pipeline)
            #expect(status["edges"]?.stale == 2 && status["total"]?.stale == 0 && status["size"]?.stale == 0)
            let ids = try await fixture.ids(pipeline)
            let pending = try await fixture.store.pendingRecords(conformance.plan, after: nil, limit: 10, byteLimit: 1 << 20)
            #expect(pending.map(\.recordID) == [ids["k1"], ids["k3"]].compactMap { $0 })
            // After a cursor, only later records.
            let later = try await fixture.store.pendingRecords(conformance.plan, after: ids["k1"], limit: 10, byteLimit: 1 << 20)
            #expect(later.map(\.recordID) == [ids["k3"]].compactMap { $0 })

            let unknownProcessor = await #expect(throws: RederiveError.self) {
                _ = try await fixture.store.invalidate(pipeline, processors: ["nope"], keys: nil)
            }
            #expect(unknownProcessor?.code == .unknownName)
            let unknownKey = await #expect(throws: RederiveError.self) {
                _ = try await fixture.store.invalidate(pipeline, processors: nil, keys: ["k1", "missing"])
            }
            #expect(unknownKey?.code == .unknownName)
            #expect(try await fixture.status(pipeline)["total"]?.stale == 0, "a refused invalidation marks nothing")
        }
    }
}
