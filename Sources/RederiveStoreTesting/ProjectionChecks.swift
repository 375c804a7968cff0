import Rederive
import RederiveCodec

/// Every store writes a projection with each record's values, derives a bump of a payload processor
/// from it, and falls back to the payload, counting why, when it does not serve.
enum ProjectionChecks {
    static let area = "projections"

    static let all: [StoreCheck] = [
        StoreCheck(area, needs: .projections, "aBumpDerivesFromProjectionsToTheSameValues") { fixture, expect in
            let conformance = ConformancePipeline(projectionVersion: 1)
            let pipeline = conformance.pipeline
            try await fixture.seed(pipeline, count: 6)
            let first = try await fixture.run(pipeline)
            expect.equal(first.counts, RunCounts(changed: 6), #"first.counts"#)
            expect(first.projections.used == 0 && first.projections.fallbacks == [.missing: 6],
                #"first.projections.used == 0 && first.projections.fallbacks == [.missing: 6]"#)
            let projections = try ProjectionChecks.projections(fixture)
            expect.equal(try await projections.currentProjectionCount(pipeline), 6, #"projections.currentProjectionCount(pipeline)"#)
            let before = try await fixture.values(of: "k4", pipeline)

            var bumped = conformance
            bumped.totalVersion = 2
            conformance.derivations.reset()
            let bump = try await fixture.run(bumped.pipeline)
            expect.equal(bump.counts, RunCounts(unchanged: 6), #"bump.counts"#)
            expect(bump.projections.used == 6 && bump.projections.fallbacks.isEmpty,
                #"bump.projections.used == 6 && bump.projections.fallbacks.isEmpty"#)
            expect.equal(conformance.derivations["total"], 6, #"conformance.derivations["total"]"#)
            expect.equal(try await fixture.values(of: "k4", pipeline), before, #"fixture.values(of: "k4", pipeline)"#)

            // Every sampled projection agrees with a fresh decode of its payload.
            let samples = try await projections.projectionSamples(pipeline, limit: 100)
            expect.equal(samples.count, 6, #"samples.count"#)
            for sample in samples {
                expect(sample.checksumMatches, #"sample.checksumMatches"#)
                expect.equal(pipeline.projectionMismatch(sample.projection, payload: sample.payload, codec: PayloadCodec()), nil,
                    #"pipeline.projectionMismatch(sample.projection, payload: sample.payload, codec: PayloadCodec())"#)
            }
        },
        StoreCheck(area, needs: .projections, "aReplacedPayloadANewVersionAndDroppedProjectionsFallBack") { fixture, expect in
            var conformance = try await ProjectionChecks.derivedWithProjections(fixture)
            let projections = try ProjectionChecks.projections(fixture)

            // A payload replaced: its record derives from the new payload, the others from projections.
            try await fixture.replace("k2", label: "s2", values: [100, 1], in: conformance.pipeline)
            conformance.totalVersion = 2
            let replaced = try await fixture.run(conformance.pipeline)
            expect(replaced.projections.used == 3 && replaced.projections.fallbacks == [.payloadChanged: 1],
                #"replaced.projections.used == 3 && replaced.projections.fallbacks == [.payloadChanged: 1]"#)
            expect.equal(try await fixture.values(of: "k2", conformance.pipeline)?["total"], .real(101),
                #"fixture.values(of: "k2", conformance.pipeline)?["total"]"#)
            expect.equal(try await projections.currentProjectionCount(conformance.pipeline), 4,
                #"projections.currentProjectionCount(conformance.pipeline)"#)

            // A new projection version reads none of the older ones, and writes them all again.
            conformance.projectionVersion = 2
            conformance.totalVersion = 3
            expect.equal(try await projections.currentProjectionCount(conformance.pipeline), 0,
                #"projections.currentProjectionCount(conformance.pipeline)"#)
            let version = try await fixture.run(conformance.pipeline)
            expect(version.projections.used == 0 && version.projections.fallbacks == [.versionChanged: 4],
                #"version.projections.used == 0 && version.projections.fallbacks == [.versionChanged: 4]"#)
            expect.equal(try await projections.currentProjectionCount(conformance.pipeline), 4,
                #"projections.currentProjectionCount(conformance.pipeline)"#)

            // Dropped projections: the next bump derives from payloads and writes them again.
            expect.equal(try await projections.dropProjections(conformance.pipeline), 4,
                #"projections.dropProjections(conformance.pipeline)"#)
            conformance.totalVersion = 4
            let dropped = try await fixture.run(conformance.pipeline)
            expect.equal(dropped.projections.fallbacks, [.missing: 4], #"dropped.projections.fallbacks"#)
            expect.equal(try await projections.currentProjectionCount(conformance.pipeline), 4,
                #"projections.currentProjectionCount(conformance.pipeline)"#)

            // Reset clears them with the rest of the derived state.
            _ = try await fixture.store.reset(conformance.pipeline)
            expect.equal(try await projections.currentProjectionCount(conformance.pipeline), 0,
                #"projections.currentProjectionCount(conformance.pipeline)"#)
        },
        StoreCheck(area, needs: .projections, "aCorruptedProjectionFallsBackToItsPayload") { fixture, expect in
            var conformance = try await ProjectionChecks.derivedWithProjections(fixture)
            let projections = try ProjectionChecks.projections(fixture)
            let overwrite = try expect.require(fixture.overwriteProjection,
                #"fixture.overwriteProjection"#, "the fixture cannot overwrite a stored projection")

            // k1's projection holds k3's bytes: they decode, to another item, but fail k1's checksum.
            let ids = try await fixture.ids(conformance.pipeline)
            let samples = try await projections.projectionSamples(conformance.pipeline, limit: 100)
            let k3 = try expect.require(samples.first { $0.recordID == ids["k3"] }, #"samples.first { $0.recordID == ids["k3"] }"#)
            let k1 = try expect.require(ids["k1"], #"ids["k1"]"#)
            try await overwrite(k1, k3.projection, conformance.pipeline)
            expect.equal(try await projections.projectionSamples(conformance.pipeline, limit: 100).count { !$0.checksumMatches }, 1,
                #"projections.projectionSamples(conformance.pipeline, limit: 100).count { !$0.checksumMatches }"#)

            conformance.totalVersion = 2
            let bump = try await fixture.run(conformance.pipeline)
            expect(bump.projections.used == 3 && bump.projections.fallbacks == [.checksumMismatch: 1],
                #"bump.projections.used == 3 && bump.projections.fallbacks == [.checksumMismatch: 1]"#)
            // Its payload's values (1 + 1 + 2), never k3's (3 + 1 + 2); and its projection written again.
            expect.equal(try await fixture.values(of: "k1", conformance.pipeline)?["total"], .real(4),
                #"fixture.values(of: "k1", conformance.pipeline)?["total"]"#)
            let rewritten = try await projections.projectionSamples(conformance.pipeline, limit: 100)
            expect(rewritten.count == 4 && rewritten.allSatisfy(\.checksumMatches),
                #"rewritten.count == 4 && rewritten.allSatisfy(\.checksumMatches)"#)
            expect(rewritten.first { $0.recordID == k1 }?.projection != k3.projection,
                #"rewritten.first { $0.recordID == k1 }?.projection != k3.projection"#)
        },
        StoreCheck(area, needs: .projections, "aClaimHandsOutProjectionsAndPayloadsInIDOrderAndCountsOnlyPayloadsAgainstItsByteLimit") { fixture, expect in
            var conformance = try await ProjectionChecks.derivedWithProjections(fixture)
            try await fixture.replace("k2", label: "s2", values: [100, 1], in: conformance.pipeline)
            conformance.totalVersion = 2
            let plan = conformance.plan
            let ids = try await fixture.ids(plan.pipeline)
            let lease = try await fixture.lease(1)
            let run = try await fixture.store.startRun([plan], lease: lease)

            // k0 and k1 come from their projections, which hold no payload bytes; k2's payload
            // replaced, it comes with its payload, which reaches the limit and ends the claim.
            let first = try await fixture.store.claim(plan, limit: 4, byteLimit: 1, lease: lease)
            expect.equal(first.map(\.recordID), ["k0", "k1", "k2"].map { ids[$0] }, #"first.map(\.recordID)"#)
            expect.equal(first.map { isProjection($0.input) }, [true, true, false], #"first.map { isProjection($0.input) }"#)
            expect.equal(first.map { $0.payload != nil }, [false, false, true], #"first.map { $0.payload != nil }"#)
            expect.equal(first.map(\.input.projectionFallback), [nil, nil, .payloadChanged], #"first.map(\.input.projectionFallback)"#)
            let rest = try await fixture.store.claim(plan, limit: 4, byteLimit: 1, lease: lease)
            expect(rest.map(\.recordID) == [ids["k3"]] && rest.first.map { isProjection($0.input) } == true,
                #"rest.map(\.recordID) == [ids["k3"]] && rest.first.map { isProjection($0.input) } == true"#)
            expect(try await fixture.store.claim(plan, limit: 4, byteLimit: 1, lease: lease).isEmpty,
                #"fixture.store.claim(plan, limit: 4, byteLimit: 1, lease: lease).isEmpty"#)
            try await fixture.store.finishRun(run.id, status: .completed, counts: RunCounts(), lease: lease)
            try await fixture.store.releaseLease(lease)
        },
        StoreCheck(area, needs: .projections, "aPipelineWithoutAProjectionKeepsNone") { fixture, expect in
            let pipeline = ConformancePipeline().pipeline
            try await fixture.seed(pipeline, count: 3)
            let run = try await fixture.run(pipeline)
            expect.equal(run.projections, ProjectionCounts(), #"run.projections"#)
            expect.equal(try await ProjectionChecks.projections(fixture).currentProjectionCount(pipeline), 0,
                #"ProjectionChecks.projections(fixture).currentProjectionCount(pipeline)"#)
        },
    ]

    static func projections(_ fixture: CheckedFixture) throws -> any ProjectionStoring {
        try fixture.expect.require(fixture.store.projectionStore, "store.projectionStore", "the store keeps no projections")
    }

    /// Items `k0` to `k3` of a pipeline with a projection, derived once: each has its projection.
    static func derivedWithProjections(_ fixture: CheckedFixture) async throws -> ConformancePipeline {
        let conformance = ConformancePipeline(projectionVersion: 1)
        try await fixture.seed(conformance.pipeline, count: 4)
        _ = try await fixture.run(conformance.pipeline)
        return conformance
    }
}

/// Whether a record's payload processors derive from its stored projection.
private func isProjection(_ input: PendingInput) -> Bool {
    if case .projection = input { true } else { false }
}
