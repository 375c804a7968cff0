import Foundation
import GRDB
import Rederive
import RederiveCodec
import RederiveTestSupport
import RoomScan
import Testing

@Suite("rederive on real RoomPlan exports", .timeLimit(.minutes(5)))
struct RoomScanCommandTests {
    static let realColumns = ["floor_area_sqm", "wall_length_m", "ceiling_height_m"]
    static let integerColumns = ["wall_count", "door_count", "window_count", "opening_count", "object_count"]
    static let textColumns = ["object_categories", "section_labels"]

    /// Checks every derived column of every export against the independently computed values.
    func expectExpectedValues(_ harness: CommandHarness, keyedBy key: (String) -> String) throws {
        let expected = try RealExports.expected()
        #expect(expected.count == RealExports.names.count)
        let rows = try harness.connection().read { db in
            try Row.fetchAll(db, sql: "SELECT s.scan_id, d.* FROM room_scans s JOIN room_scans_derived d ON d.id = s.id")
        }
        let byKey = Dictionary(uniqueKeysWithValues: rows.map { (($0["scan_id"] as String), $0) })
        for (file, values) in expected {
            guard let row = byKey[key(file)] else {
                Issue.record("\(file) was not derived")
                continue
            }
            for column in Self.realColumns {
                let want = try #require(values[column] as? Double)
                let got: Double = row[column]
                #expect(abs(got - want) <= 1e-4 * max(1, abs(want)), "\(file) \(column): \(got) != \(want)")
            }
            for column in Self.integerColumns {
                #expect((row[column] as Int) == (values[column] as? Int), "\(file) \(column)")
            }
            for column in Self.textColumns {
                #expect((row[column] as String) == (values[column] as? String), "\(file) \(column)")
            }
        }
    }

    @Test func importedExportsGetExactlyTheIndependentlyComputedValues() async throws {
        try await CommandHarness.withHarness { harness in
            let imported = try await harness.rederive("import", RealExports.exportsDirectory)
            #expect(imported.status == 0, "\(imported.errors)")
            #expect(imported.output.contains("13 new"))
            let run = try await harness.rederive("run", "--parallel", "8", "--progress", "none")
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.output.contains("13 derived, 0 unchanged, 0 failed"))
            try expectExpectedValues(harness) { ($0 as NSString).deletingPathExtension }

            let again = try await harness.rederive("run", "--progress", "none")
            #expect(again.output.contains("0 derived, 0 unchanged, 0 failed"))
        }
    }

    @Test(arguments: PayloadFormat.allCases)
    func rowsWrittenByAnotherProgramDeriveOnTheNextRun(format: PayloadFormat) async throws {
        try await CommandHarness.withHarness { harness in
            // A first run, with nothing to derive and --create, creates the database and the pipeline's table.
            _ = try await harness.rederive("run", "--create", "--progress", "none")
            try await harness.connection().write { db in
                for name in RealExports.names {
                    let payload = PayloadCodec.encode(try RealExports.bytes(name), as: format)
                    try db.execute(sql: "INSERT INTO room_scans (scan_id, payload) VALUES (?, ?)", arguments: [name, Data(payload)])
                }
            }
            let run = try await harness.rederive("run", "--progress", "none")
            #expect(run.status == 0, "\(run.errors)")
            try expectExpectedValues(harness) { $0 }
        }
    }

    @Test func brokenPayloadsExitWithStatusThreeAndAreExactlyTheFailuresReported() async throws {
        try await CommandHarness.withHarness { harness in
            _ = try await harness.rederive("import", RealExports.exportsDirectory)
            let good = try RealExports.bytes(RealExports.names[0])
            let broken: [(String, [UInt8])] = [
                ("truncated", Array(PayloadCodec.encode(good).prefix(3_000))),
                ("not-json", PayloadCodec.encode(Array("this is not json".utf8))),
                ("array", PayloadCodec.encode(Array("[1, 2, 3]".utf8))),
                ("empty", []),
            ]
            try await harness.connection().write { db in
                for (key, payload) in broken {
                    try db.execute(sql: "INSERT INTO room_scans (scan_id, payload) VALUES (?, ?)", arguments: [key, Data(payload)])
                }
            }
            let run = try await harness.rederive("run", "--progress", "none")
            #expect(run.status == 3)
            #expect(run.output.contains("13 derived, 0 unchanged, 4 failed"))

            let report = try await harness.rederive("failures", "--format", "json")
            #expect(report.status == 0)
            let failures = try #require(try JSONSerialization.jsonObject(with: Data(report.output.utf8)) as? [[String: Any]])
            let keys = Set(failures.compactMap { $0["key"] as? String })
            #expect(keys == Set(broken.map(\.0)))
            #expect(failures.count == broken.count * RoomScan.processors.count)
            for failure in failures {
                for field in ["recordId", "key", "processor", "version", "kind", "message", "runId", "at"] {
                    #expect(failure[field] != nil, "failure lacks \(field)")
                }
            }
            let kinds = Dictionary(grouping: failures, by: { $0["key"] as? String ?? "" }).mapValues { Set($0.compactMap { $0["kind"] as? String }) }
            // room_type reads other processors' values: it fails because they did.
            #expect(kinds["truncated"] == ["decompression", "upstream"])
            #expect(kinds["not-json"] == ["decoding", "upstream"])
            #expect(kinds["array"] == ["decoding", "upstream"])

            let csv = try await harness.rederive("failures", "--format", "csv", "--processor", "floor_area")
            #expect(csv.output.split(separator: "\n").count == 1 + broken.count)

            let status = try await harness.rederive("status", "--format", "json")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])
            #expect(object["records"] as? Int == 17)
            let processors = try #require(object["processors"] as? [[String: Any]])
            #expect(processors.map { $0["name"] as? String } == RoomScan.processors.map(\.name))
            for processor in processors {
                #expect(processor["upToDate"] as? Int == 13)
                #expect(processor["stale"] as? Int == 0, "failed records are not stale")
                #expect(processor["failed"] as? Int == 4)
                #expect(processor["version"] as? Int == 1)
            }
        }
    }
}
