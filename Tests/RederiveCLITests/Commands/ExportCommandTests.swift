import Foundation
import RederiveCLI
import RederiveTestSupport
import Testing

@Suite("rederive export", .timeLimit(.minutes(5)))
struct ExportCommandTests {
    @Test(arguments: TestStore.available)
    func exportWritesTheImportedFilesBackSoThatImportFindsThemUnchanged(store: TestStore) async throws {
        try await store.withHarness { harness in
            _ = try await harness.rederive("import", RealExports.exportsDirectory)
            let folder = harness.directory.appendingPathComponent("exports").path
            let export = try await harness.rederive("export", folder)
            #expect(export.status == 0)
            #expect(export.output == "exported 13 records of room_scans to \(folder)\n")
            // The files are the imported ones, byte for byte, under their own names.
            #expect(try Self.files(in: folder) == RealExports.names)
            for name in RealExports.names {
                #expect(try Self.bytes(folder, name) == RealExports.bytes(name), "\(name)")
            }
            let back = try await harness.rederive("import", folder)
            #expect(back.output.contains("0 new, 0 replaced, 13 unchanged"))

            // Into a new database and out again: the same files.
            try await store.withHarness { other in
                let imported = try await other.rederive("import", folder)
                #expect(imported.output.contains("13 new, 0 replaced, 0 unchanged"))
                let again = other.directory.appendingPathComponent("again").path
                #expect(try await other.rederive("export", again).status == 0)
                #expect(try Self.files(in: again) == RealExports.names)
                for name in RealExports.names {
                    #expect(try Self.bytes(again, name) == Self.bytes(folder, name), "\(name)")
                }
            }
        }
    }

    @Test func aKeyAsLongAsAFileNameAllowsIsExportedAsImportAcceptedIt() async throws {
        try await CommandHarness.withHarness { harness in
            // 250 characters and `.json`: the longest name a Linux file system allows, 255 bytes.
            let folder = harness.directory.appendingPathComponent("in", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let long = String(repeating: "k", count: 249) + "1"
            let names = [long, "short"].map { $0 + ".json" }
            for name in names {
                try Data(try RealExports.bytes(RealExports.names[0])).write(to: folder.appendingPathComponent(name))
            }
            #expect(try await harness.rederive("import", folder.path).status == 0)
            let out = harness.directory.appendingPathComponent("out").path
            let export = try await harness.rederive("export", out)
            #expect(export.status == 0, "\(export.errors)")
            #expect(export.output == "exported 2 records of room_scans to \(out)\n", "\(export.output)")
            #expect(try Self.files(in: out) == names.sorted())
            #expect(try FileManager.default.contentsOfDirectory(atPath: out).allSatisfy { !$0.hasPrefix(".") })
        }
    }

    @Test(arguments: TestStore.available)
    func exportRefusesExistingFilesWritingNothingUnlessForced(store: TestStore) async throws {
        try await store.withHarness { harness in
            let first = RealExports.names[0]
            _ = try await harness.rederive("import", RealExports.exportsDirectory)
            let folder = harness.directory.appendingPathComponent("exports").path
            _ = try await harness.rederive("export", folder)
            let edited = (folder as NSString).appendingPathComponent(first)
            try Data("{}".utf8).write(to: URL(fileURLWithPath: edited))
            // A record added since: its file must not be written by the refused export either.
            _ = try await harness.rederive("import", harness.file("added.json", #"{"walls": []}"#))

            let refused = try await harness.rederive("export", folder)
            #expect(refused.status == ExitStatus.failure)
            #expect(refused.errors.contains("\(edited) and 12 other files exist already; nothing was exported (--force replaces them)"))
            #expect(try Self.bytes(folder, first) == Array("{}".utf8))
            #expect(try Self.files(in: folder) == RealExports.names)

            let forced = try await harness.rederive("export", "--force", folder)
            #expect(forced.status == 0)
            #expect(forced.output.contains("exported 14 records"))
            #expect(try Self.bytes(folder, first) == RealExports.bytes(first))
            #expect(try Self.bytes(folder, "added.json") == Array(#"{"walls": []}"#.utf8))
            // Nothing but the finished files: no temporary file is left behind.
            #expect(try Self.files(in: folder, all: true) == (RealExports.names + ["added.json"]).sorted())
        }
    }

    @Test(arguments: TestStore.available)
    func oddKeysComeBackUnchangedAndKeysNoFileCanHoldAreSkippedByName(store: TestStore) async throws {
        let readable = ["with space & ünïcode", ".dot-first", "twice.json", "trailing.", "semi;colon 'quoted'"]
        let unnamable = ["rooms/kitchen", ""]
        try await store.withHarness { harness in
            let keys = readable + unnamable
            for (index, key) in keys.enumerated() {
                let path = try harness.file("k\(index).json", String(decoding: try RealExports.bytes(RealExports.names[index]), as: UTF8.self))
                _ = try await harness.rederive("import", path)
                try await harness.execute(
                    "UPDATE room_scans SET scan_id = '\(key.replacingOccurrences(of: "'", with: "''"))' WHERE scan_id = 'k\(index)'"
                )
            }
            let folder = harness.directory.appendingPathComponent("exports").path
            let export = try await harness.rederive("export", folder)
            #expect(export.status == ExitStatus.someFailed)
            #expect(export.output == "exported 5 records of room_scans to \(folder), 2 skipped\n")
            #expect(export.errors.contains(#"skipped "rooms/kitchen": its key cannot be a file name: it contains "/""#))
            #expect(export.errors.contains(#"skipped "": its key cannot be a file name: it is empty"#))

            try await store.withHarness { other in
                _ = try await other.rederive("import", folder)
                let imported = try await other.rows("SELECT scan_id FROM room_scans").map { $0[0] }
                #expect(Set(imported) == Set(readable))
                for (index, key) in readable.enumerated() {
                    #expect(try Self.bytes(folder, key + ".json") == RealExports.bytes(RealExports.names[index]), "\(key)")
                }
            }
        }
    }

    @Test(arguments: TestStore.available)
    func whereAndLimitChooseTheRecordsAndAConditionThatWritesIsRefused(store: TestStore) async throws {
        try await store.withHarness { harness in
            _ = try await harness.rederive("import", RealExports.exportsDirectory)
            let bedrooms = harness.directory.appendingPathComponent("bedrooms").path
            let chosen = try await harness.rederive("export", bedrooms, "--where", "scan_id LIKE '%Bedroom%'")
            #expect(chosen.status == 0)
            #expect(try Self.files(in: bedrooms) == RealExports.names.filter { $0.contains("Bedroom") })

            let firstTwo = harness.directory.appendingPathComponent("two").path
            #expect(try await harness.rederive("export", firstTwo, "--limit", "2").output.contains("exported 2 records"))
            #expect(try Self.files(in: firstTwo).count == 2)

            let unknown = harness.directory.appendingPathComponent("unknown").path
            let misspelt = try await harness.rederive("export", unknown, "--where", "no_such_column = 1")
            #expect(misspelt.status == ExitStatus.usage)
            #expect(misspelt.errors.contains("no_such_column = 1"))
            #expect(!FileManager.default.fileExists(atPath: unknown))

            let sneaky = "1); DELETE FROM room_scans; --"
            let refused = try await harness.rederive("export", unknown, "--where", sneaky)
            #expect(refused.status == ExitStatus.usage)
            #expect(refused.errors.contains(sneaky))
            #expect(try await harness.rows("SELECT count(*) FROM room_scans") == [["13"]])
        }
    }

    /// The `.json` files in `folder` (every file with `all`), sorted.
    static func files(in folder: String, all: Bool = false) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { all || $0.hasSuffix(".json") }.sorted()
    }

    static func bytes(_ folder: String, _ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder).appendingPathComponent(name)))
    }
}
