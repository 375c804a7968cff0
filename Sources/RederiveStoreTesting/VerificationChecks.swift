import Rederive

/// Every store hands out records as stored, for `verify` and previews: payloads byte for byte,
/// every processor's values and stamps, in id order, and what a pipeline still needs prepared.
enum VerificationChecks {
    static let area = "verification inputs and stored values"

    static let all: [StoreCheck] = [
        StoreCheck(area, "recordsAreHandedOutAsStored") { fixture, expect in
            let pipeline = ConformancePipeline().pipeline
            try await fixture.seed(pipeline, count: 4)
            let before = try await fixture.store.storedRecords(of: pipeline, after: nil, limit: 10)
            expect.equal(before.map(\.key), ["k0", "k1", "k2", "k3"], #"before.map(\.key)"#)
            expect(before.allSatisfy { $0.stamps == [nil, nil, nil] }, #"before.allSatisfy { $0.stamps == [nil, nil, nil] }"#)
            // Without a row of derived values every column reads NULL, whatever its default.
            expect(before.allSatisfy { $0.values == [[.null], [.null, .null, .null], [.null]] },
                #"before.allSatisfy { $0.values == [[.null], [.null, .null, .null], [.null]] }"#)

            _ = try await fixture.run(pipeline)
            let ids = before.map(\.recordID)
            expect.equal(ids, ids.sorted(), #"ids"#)
            let page = try await fixture.store.storedRecords(of: pipeline, after: ids[0], limit: 2)
            expect.equal(page.map(\.recordID), [ids[1], ids[2]], #"page.map(\.recordID)"#)
            let record = try expect.require(page.first, #"page.first"#)
            expect.equal(record.payload, ConformancePipeline.item("s1", [1, 1, 2]), #"record.payload"#)
            expect.equal(record.values, [[.real(4)], [.null, .real(0), .real(3_000)], [.text("small")]], #"record.values"#)
            expect.equal(record.stamps, Array(repeating: StoredRecord.Stamp(version: 1, current: true), count: 3), #"record.stamps"#)

            try await fixture.replace("k1", label: "s1", values: [9], in: pipeline)
            let stale = try await fixture.store.storedRecords(of: pipeline, ids: [ids[3], 999_999, ids[1]])
            expect.equal(stale.map(\.recordID), [ids[1], ids[3]], #"stale.map(\.recordID)"#)
            expect.equal(stale.first?.stamps, Array(repeating: StoredRecord.Stamp(version: 1, current: false), count: 3),
                #"stale.first?.stamps"#)
            expect.equal(stale.first?.values.first, [.real(4)], #"stale.first?.values.first"#, "values stay until derived again")

            let sample = try await fixture.store.sampleRecordIDs(of: pipeline, count: 3)
            expect(sample.count == 3 && sample == sample.sorted() && Set(sample).isSubset(of: ids),
                #"sample.count == 3 && sample == sample.sorted() && Set(sample).isSubset(of: ids)"#)
            expect.equal(Set(try await fixture.store.sampleRecordIDs(of: pipeline, count: 10)), Set(ids),
                #"Set(fixture.store.sampleRecordIDs(of: pipeline, count: 10))"#)
        },
        StoreCheck(area, "verifyFindsWhatDiffersFromWhatTheProcessorsDeriveNow") { fixture, expect in
            let pipeline = ConformancePipeline().pipeline
            try await fixture.seed(pipeline, count: 3)
            _ = try await fixture.run(pipeline)
            let clean = try await Verifier(source: fixture.store, pipelines: [pipeline]).verify()
            expect.equal(clean.records, 3, #"clean.records"#)
            expect(clean.differences.isEmpty, #"clean.differences.isEmpty"#, "\(clean.differences.prefix(3))")

            let scaled = ConformancePipeline(totalVersion: 2, totalScale: 10).pipeline
            let report = try await Verifier(source: fixture.store, pipelines: [scaled]).verify()
            expect.equal(Set(report.differences.map(\.column)), ["total", "size"], #"Set(report.differences.map(\.column))"#)
            expect.equal(report.differences.count, 6, #"report.differences.count"#)
        },
        StoreCheck(area, "storedRowsShowWhatIsStoredAndPreparationIsReported") { fixture, expect in
            let pipeline = ConformancePipeline().pipeline
            expect(try await fixture.store.needsPreparation(pipeline), #"fixture.store.needsPreparation(pipeline)"#)
            try await fixture.seed(pipeline, count: 2)
            expect(try await !fixture.store.needsPreparation(pipeline), #"!fixture.store.needsPreparation(pipeline)"#)
            let ids = try await fixture.ids(pipeline)
            let id = try expect.require(ids["k0"], #"ids["k0"]"#)
            let rows = try await fixture.store.storedRows(of: pipeline, recordIDs: [id, 999_999])
            expect.equal(rows.keys.sorted(), [id], #"rows.keys.sorted()"#)
            expect.equal(rows[id], StoredRow(key: "k0", values: nil), #"rows[id]"#)

            _ = try await fixture.run(pipeline)
            let derived = try await fixture.store.storedRows(of: pipeline, recordIDs: [id])
            expect.equal(derived[id], StoredRow(key: "k0", values: [.real(3), .null, .real(0), .real(3_000), .text("small")]),
                #"derived[id]"#)
        },
    ]
}

