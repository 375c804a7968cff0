import Foundation
import Rederive
import Testing

/// Every store hands out records as stored, for `verify` and previews: payloads byte for byte,
/// every processor's values and stamps, in id order, and what a pipeline still needs prepared.
@Suite("Store conformance: verification inputs and stored values", .timeLimit(.minutes(5)))
struct VerificationConformanceTests {
    @Test(arguments: StoreUnderTest.all)
    func recordsAreHandedOutAsStored(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let pipeline = ConformancePipeline().pipeline
            try await fixture.seed(pipeline, count: 4)
            let before = try await fixture.store.storedRecords(of: pipeline, after: nil, limit: 10)
            #expect(before.map(\.key) == ["k0", "k1", "k2", "k3"])
            #expect(before.allSatisfy { $0.stamps == [nil, nil, nil] })
            // Without a row of derived values every column reads NULL, whatever its default.
            #expect(before.allSatisfy { $0.values == [[.null], [.null, .null, .null], [.null]] })

            _ = try await fixture.run(pipeline)
            let ids = before.map(\.recordID)
            #expect(ids == ids.sorted())
            let page = try await fixture.store.storedRecords(of: pipeline, after: ids[0], limit: 2)
            #expect(page.map(\.recordID) == [ids[1], ids[2]])
            let record = try #require(page.first)
            #expect(record.payload == ConformancePipeline.item("s1", [1, 1, 2]))
            #expect(record.values == [[.real(4)], [.null, .real(0), .real(3_000)], [.text("small")]])
            #expect(record.stamps == Array(repeating: StoredRecord.Stamp(version: 1, current: true), count: 3))

            try await fixture.replace("k1", label: "s1", values: [9], in: pipeline)
            let stale = try await fixture.store.storedRecords(of: pipeline, ids: [ids[3], 999_999, ids[1]])
            #expect(stale.map(\.recordID) == [ids[1], ids[3]])
            #expect(stale.first?.stamps == Array(repeating: StoredRecord.Stamp(version: 1, current: false), count: 3))
            #expect(stale.first?.values.first == [.real(4)], "values stay until derived again")

            let sample = try await fixture.store.sampleRecordIDs(of: pipeline, count: 3)
            #expect(sample.count == 3 && sample == sample.sorted() && Set(sample).isSubset(of: ids))
            #expect(Set(try await fixture.store.sampleRecordIDs(of: pipeline, count: 10)) == Set(ids))
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func verifyFindsWhatDiffersFromWhatTheProcessorsDeriveNow(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let pipeline = ConformancePipeline().pipeline
            try await fixture.seed(pipeline, count: 3)
            _ = try await fixture.run(pipeline)
            let clean = try await Verifier(source: fixture.store, pipelines: [pipeline]).verify()
            #expect(clean.records == 3)
            #expect(clean.differences.isEmpty, "\(clean.differences.prefix(3))")

            let scaled = ConformancePipeline(totalVersion: 2, totalScale: 10).pipeline
            let report = try await Verifier(source: fixture.store, pipelines: [scaled]).verify()
            #expect(Set(report.differences.map(\.column)) == ["total", "size"])
            #expect(report.differences.count == 6)
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func storedRowsShowWhatIsStoredAndPreparationIsReported(kind: StoreUnderTest) async throws {
        try await StoreFixture.with(kind) { fixture in
            let pipeline = ConformancePipeline().pipeline
            #expect(try await fixture.store.needsPreparation(pipeline))
            try await fixture.seed(pipeline, count: 2)
            #expect(try await !fixture.store.needsPreparation(pipeline))
            let ids = try await fixture.ids(pipeline)
            let id = try #require(ids["k0"])
            let rows = try await fixture.store.storedRows(of: pipeline, recordIDs: [id, 999_999])
            #expect(rows.keys.sorted() == [id])
            #expect(rows[id] == StoredRow(key: "k0", values: nil))

            _ = try await fixture.run(pipeline)
            let derived = try await fixture.store.storedRows(of: pipeline, recordIDs: [id])
            #expect(derived[id] == StoredRow(key: "k0", values: [.real(3), .null, .real(0), .real(3_000), .text("small")]))
        }
    }
}
