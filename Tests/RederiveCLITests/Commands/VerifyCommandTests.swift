import Foundation
import RederiveCLI
import RederiveTestSupport
import RoomScan
import Testing

@Suite("rederive verify", .timeLimit(.minutes(5)))
struct VerifyCommandTests {
    func report(_ outcome: CommandHarness.Outcome) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [String: Any], "\(outcome.output)")
    }

    @Test(arguments: TestStore.available)
    func aCleanDatabaseVerifiesWithoutDifferences(store: TestStore) async throws {
        try await store.withHarness { harness in
            _ = try await harness.rederive("import", RealExports.exportsDirectory)
            #expect(try await harness.rederive("run", "--progress", "none").status == 0)

            let table = try await harness.rederive("verify")
            #expect(table.status == ExitStatus.success, "\(table.errors)")
            #expect(table.output.contains("verified 13 records: every stored value matches"), "\(table.output)")

            let json = try report(try await harness.rederive("verify", "--all", "--format", "json"))
            #expect(json["records"] as? Int == 13)
            #expect(json["compared"] as? Int == 13 * RoomScan.processors.count)
            #expect((json["differences"] as? [Any])?.isEmpty == true)

            let sample = try report(try await harness.rederive("verify", "--sample", "4", "--format", "json"))
            #expect(sample["records"] as? Int == 4)
        }
    }

    @Test(arguments: TestStore.available)
    func aTamperedValueIsReportedWithItsKeyColumnAndBothValues(store: TestStore) async throws {
        try await store.withHarness { harness in
            _ = try await harness.rederive("import", RealExports.exportsDirectory)
            _ = try await harness.rederive("run", "--progress", "none")
            let key = (RealExports.names[3] as NSString).deletingPathExtension
            let walls = try #require(RealExports.expected()[RealExports.names[3]]?["wall_count"] as? Int)
            try await harness.execute("""
                UPDATE room_scans_derived SET wall_count = 99, section_labels = 'tampered'
                WHERE id = (SELECT id FROM room_scans WHERE scan_id = '\(key)')
                """)

            let table = try await harness.rederive("verify")
            #expect(table.status == ExitStatus.mismatch)
            let line = try #require(table.output.split(separator: "\n").first { $0.contains("wall_count") })
            #expect(line.contains(key) && line.contains("99") && line.contains("\(walls)") && line.contains("up to date"), "\(line)")
            #expect(table.output.contains("2 values of 1 record differ"), "\(table.output)")

            let json = try await harness.rederive("verify", "--format", "json")
            #expect(json.status == ExitStatus.mismatch)
            let differences = try #require(try report(json)["differences"] as? [[String: Any]])
            #expect(differences.count == 2)
            let wallCount = try #require(differences.first { $0["column"] as? String == "wall_count" })
            #expect(wallCount["key"] as? String == key)
            #expect(wallCount["processor"] as? String == "element_counts")
            #expect(wallCount["stored"] as? Int == 99)
            #expect(wallCount["derived"] as? Int == walls)
            #expect(wallCount["upToDate"] as? Bool == true)
            #expect(differences.contains { $0["column"] as? String == "section_labels" && $0["stored"] as? String == "tampered" })

            // verify wrote nothing: the tampered values are still there until the record is derived again.
            #expect(try await harness.rederive("verify").status == ExitStatus.mismatch)
            _ = try await harness.rederive("invalidate", "--key", key)
            _ = try await harness.rederive("run", "--progress", "none")
            #expect(try await harness.rederive("verify").status == ExitStatus.success)
        }
    }

    @Test(arguments: TestStore.available)
    func recordsNeverDerivedAreNotCompared(store: TestStore) async throws {
        try await store.withHarness { harness in
            _ = try await harness.rederive("import", RealExports.exportsDirectory)
            let outcome = try await harness.rederive("verify", "--format", "json")
            #expect(outcome.status == ExitStatus.success)
            let json = try report(outcome)
            #expect(json["compared"] as? Int == 0)
            #expect(json["notDerived"] as? Int == 13 * RoomScan.processors.count)
        }
    }

    @Test(arguments: TestStore.available)
    func aFailingRecordWithStoredValuesDiffers(store: TestStore) async throws {
        try await store.withHarness { harness in
            _ = try await harness.rederive("import", RealExports.exportsDirectory)
            _ = try await harness.rederive("run", "--progress", "none")
            let key = (RealExports.names[0] as NSString).deletingPathExtension
            // The payload is replaced by one that fails; the record keeps its old values, now stale.
            try await harness.replacePayload(key: key, with: Array("{\"walls\": 4}".utf8))
            _ = try await harness.rederive("run", "--progress", "none")
            let outcome = try await harness.rederive("verify", "--format", "json")
            #expect(outcome.status == ExitStatus.mismatch)
            let differences = try #require(try report(outcome)["differences"] as? [[String: Any]])
            #expect(Set(differences.compactMap { $0["key"] as? String }) == [key])
            // room_type reads the failing processors' values, and fails with them.
            #expect(differences.allSatisfy { difference in
                let prefix = difference["column"] as? String == "room_type" ? "upstream: " : "decoding: "
                return (difference["failure"] as? String)?.hasPrefix(prefix) == true && difference["upToDate"] as? Bool == false
            })
            #expect(differences.contains { $0["column"] as? String == "room_type" })
        }
    }

    @Test func conflictingScopesAreBadArguments() async throws {
        try await CommandHarness.withHarness { harness in
            let outcome = try await harness.rederive("verify", "--all", "--sample", "3")
            #expect(outcome.status == ExitStatus.usage)
        }
    }
}
