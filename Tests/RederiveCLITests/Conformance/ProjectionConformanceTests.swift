import Foundation
import Rederive
import RederiveCodec
import Testing

/// Every store writes a projection with each record's values, derives a bump of a payload processor
/// from it, and falls back to the payload, counting why, when it does not serve.
@Suite("Store conformance: projections", .timeLimit(.minutes(5)))
struct ProjectionConformanceTests {
    static func projections(_ fixture: StoreFixture) throws -> any ProjectionStoring {
        try #require(fixture.store as? any ProjectionStoring, "the store keeps no projections")
    }

    /// Items `k0` to `k3` of a pipeline with a projection, derived once: each has its projection.
    static func derivedWithProjections(_ fixture: StoreFixture) async throws -> ConformancePipeline {
        let conformance = ConformancePipeline(projectionVersion: 1)
        try await fixture.seed(conformance.pipeline, count: 4)
        _ = try await fixture.run(conformance.pipeline)
        return conformance
    }

    @Test(arguments: StoreUnderTest.all)
    func aBumpDerivesFromProjectionsToTheSameValues(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let conformance = ConformancePipeline(projectionVersion: 1)
            let pipeline = conformance.pipeline
            try await fixture.seed(pipeline, count: 6)
            let first = try await fixture.run(pipeline)
            #expect(first.counts == RunCounts(derived: 6))
            #expect(first.projections.used == 0 && first.projections.fallbacks == [.missing: 6])
            let projections = try Self.projections(fixture)
            #expect(try await projections.currentProjectionCount(pipeline) == 6)
            let before = try await fixture.values(of: "k4", pipeline)

            var bumped = conformance
            bumped.totalVersion = 2
            conformance.derivations.reset()
            let bump = try await fixture.run(bumped.pipeline)
            #expect(bump.counts == RunCounts(unchanged: 6))
            #expect(bump.projections.used == 6 && bump.projections.fallbacks.isEmpty)
            #expect(conformance.derivations["total"] == 6)
            #expect(try await fixture.values(of: "k4", pipeline) == before)

            // Every sampled projection agrees with a fresh decode of its payload.
            let samples = try await projections.projectionSamples(pipeline, limit: 100)
            #expect(samples.count == 6)
            for sample in samples {
                #expect(sample.checksumMatches)
                #expect(pipeline.projectionMismatch(sample.projection, payload: sample.payload, codec: PayloadCodec()) == nil)
            }
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func aReplacedPayloadANewVersionAndDroppedProjectionsFallBack(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            var conformance = try await Self.derivedWithProjections(fixture)
            let projections = try Self.projections(fixture)

            // A payload replaced: its record derives from the new payload, the others from projections.
            try await fixture.replace("k2", label: "s2", values: [100, 1], in: conformance.pipeline)
            conformance.totalVersion = 2
            let replaced = try await fixture.run(conformance.pipeline)
            #expect(replaced.projections.used == 3 && replaced.projections.fallbacks == [.payloadChanged: 1])
            #expect(try await fixture.values(of: "k2", conformance.pipeline)?["total"] == .real(101))
            #expect(try await projections.currentProjectionCount(conformance.pipeline) == 4)

            // A new projection version reads none of the older ones, and writes them all again.
            conformance.projectionVersion = 2
            conformance.totalVersion = 3
            #expect(try await projections.currentProjectionCount(conformance.pipeline) == 0)
            let version = try await fixture.run(conformance.pipeline)
            #expect(version.projections.used == 0 && version.projections.fallbacks == [.versionChanged: 4])
            #expect(try await projections.currentProjectionCount(conformance.pipeline) == 4)

            // Dropped projections: the next bump derives from payloads and writes them again.
            #expect(try await projections.dropProjections(conformance.pipeline) == 4)
            conformance.totalVersion = 4
            let dropped = try await fixture.run(conformance.pipeline)
            #expect(dropped.projections.fallbacks == [.missing: 4])
            #expect(try await projections.currentProjectionCount(conformance.pipeline) == 4)

            // Reset clears them with the rest of the derived state.
            _ = try await fixture.store.reset(conformance.pipeline)
            #expect(try await projections.currentProjectionCount(conformance.pipeline) == 0)
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func aCorruptedProjectionFallsBackToItsPayload(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            var conformance = try await Self.derivedWithProjections(fixture)
            let projections = try Self.projections(fixture)
            let overwrite = try #require(fixture.overwriteProjection, "the fixture cannot overwrite a stored projection")

            // k1's projection holds k3's bytes: they decode, to another item, but fail k1's checksum.
            let ids = try await fixture.ids(conformance.pipeline)
            let samples = try await projections.projectionSamples(conformance.pipeline, limit: 100)
            let k3 = try #require(samples.first { $0.recordID == ids["k3"] })
            let k1 = try #require(ids["k1"])
            try await overwrite(k1, k3.projection, conformance.pipeline)
            #expect(try await projections.projectionSamples(conformance.pipeline, limit: 100).count { !$0.checksumMatches } == 1)

            conformance.totalVersion = 2
            let bump = try await fixture.run(conformance.pipeline)
            #expect(bump.projections.used == 3 && bump.projections.fallbacks == [.checksumMismatch: 1])
            // Its payload's values (1 + 1 + 2), never k3's (3 + 1 + 2); and its projection written again.
            #expect(try await fixture.values(of: "k1", conformance.pipeline)?["total"] == .real(4))
            let rewritten = try await projections.projectionSamples(conformance.pipeline, limit: 100)
            #expect(rewritten.count == 4 && rewritten.allSatisfy(\.checksumMatches))
            #expect(rewritten.first { $0.recordID == k1 }?.projection != k3.projection)
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func aClaimHandsOutProjectionsAndPayloadsInIDOrderAndCountsOnlyPayloadsAgainstItsByteLimit(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            var conformance = try await Self.derivedWithProjections(fixture)
            try await fixture.replace("k2", label: "s2", values: [100, 1], in: conformance.pipeline)
            conformance.totalVersion = 2
            let plan = conformance.plan
            let ids = try await fixture.ids(plan.pipeline)
            let lease = try await fixture.lease(1)
            let run = try await fixture.store.startRun([plan], lease: lease)

            // k0 and k1 come from their projections, which hold no payload bytes; k2's payload
            // replaced, it comes with its payload, which reaches the limit and ends the claim.
            let first = try await fixture.store.claim(plan, limit: 4, byteLimit: 1, lease: lease)
            #expect(first.map(\.recordID) == ["k0", "k1", "k2"].map { ids[$0] })
            #expect(first.map { $0.projection != nil } == [true, true, false])
            #expect(first.map(\.payloadRead) == [false, false, true])
            #expect(first.map { $0.payload != nil } == [false, false, true])
            #expect(first.map(\.projectionFallback) == [nil, nil, .payloadChanged])
            let rest = try await fixture.store.claim(plan, limit: 4, byteLimit: 1, lease: lease)
            #expect(rest.map(\.recordID) == [ids["k3"]] && rest.first?.projection != nil)
            #expect(try await fixture.store.claim(plan, limit: 4, byteLimit: 1, lease: lease).isEmpty)
            try await fixture.store.finishRun(run.id, status: .completed, counts: RunCounts(), lease: lease)
            try await fixture.store.releaseLease(lease)
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func aPipelineWithoutAProjectionKeepsNone(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let pipeline = ConformancePipeline().pipeline
            try await fixture.seed(pipeline, count: 3)
            let run = try await fixture.run(pipeline)
            #expect(run.projections == ProjectionCounts())
            #expect(try await Self.projections(fixture).currentProjectionCount(pipeline) == 0)
        }
    }
}
