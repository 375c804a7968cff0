import Foundation
import GRDB
import Rederive
import RederiveCLI
import RederiveCodec
import RederiveSQLite
import RederiveTestSupport
import RoomScan
import Testing

/// `rederive import` on many workers: invalid files named, all or nothing, round trips through both
/// compressors, and every record under its own key in file order.
@Suite("parallel import", .timeLimit(.minutes(3)))
struct ParallelImportTests {
    @Test func invalidFilesAreNamedWithWhereAndWhyAndTheRestIsImported() async throws {
        try await CommandHarness.withHarness { harness in
            let folder = harness.directory.appendingPathComponent("exports", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let valid = ["a", "c", "e"]
            for key in valid {
                try Data(try RealExports.bytes(RealExports.names[0])).write(to: folder.appendingPathComponent("\(key).json"))
            }
            let cut = folder.appendingPathComponent("b.json").path
            try Data("{\n  \"walls\": [\n    {\"width\": 1.5,\n".utf8).write(to: URL(fileURLWithPath: cut))
            let empty = folder.appendingPathComponent("d.json").path
            try Data().write(to: URL(fileURLWithPath: empty))

            let outcome = try await harness.rederive("import", "--parallel", "3", folder.path)
            #expect(outcome.status == 3)
            #expect(outcome.errors == """
                rederive: skipped \(cut): not valid JSON at line 4, column 1 (byte 34): expected a member name in double quotes, found the end of the file
                rederive: skipped \(empty): the file is empty

                """)
            #expect(outcome.output.contains("imported 3 of 5 files into room_scans: 3 new, 0 replaced, 0 unchanged, 2 skipped"))
            let keys = try await harness.connection().read { db in try String.fetchAll(db, sql: "SELECT scan_id FROM room_scans ORDER BY id") }
            #expect(keys == valid)
        }
    }

    @Test func anUnreadableFileLeavesTheDatabaseAsItWas() async throws {
        try await CommandHarness.withHarness { harness in
            _ = try await harness.rederive("import", RealExports.exportsDirectory)
            let before = try await Self.payloads(in: harness.databasePath)
            #expect(before.count == 13)

            // Every export changed, new files beside them, and one that cannot be read, sorted last.
            let folder = harness.directory.appendingPathComponent("changed", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for name in RealExports.names {
                let text = String(decoding: try RealExports.bytes(name), as: UTF8.self)
                try Data(text.replacingOccurrences(of: "\"walls\"", with: "\"changed\":1,\"walls\"").utf8)
                    .write(to: folder.appendingPathComponent(name))
                try Data("{}".utf8).write(to: folder.appendingPathComponent("new-" + name))
            }
            let unreadable = folder.appendingPathComponent("zz-unreadable.json").path
            try FileManager.default.createSymbolicLink(atPath: unreadable, withDestinationPath: "/nonexistent/target.json")

            let outcome = try await harness.rederive("import", "--parallel", "4", folder.path)
            #expect(outcome.status == 1)
            #expect(outcome.errors.hasPrefix("rederive: cannot read \(unreadable)"))
            #expect(try await Self.payloads(in: harness.databasePath) == before)
        }
    }

    @Test func anUnreadableFileLeavesNoNewDatabaseBehind() async throws {
        try await CommandHarness.withHarness { harness in
            let folder = harness.directory.appendingPathComponent("files", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data("{}".utf8).write(to: folder.appendingPathComponent("a.json"))
            try FileManager.default.createSymbolicLink(
                atPath: folder.appendingPathComponent("b.json").path, withDestinationPath: "/nonexistent/target.json"
            )
            let outcome = try await harness.rederive("import", folder.path)
            #expect(outcome.status == 1)
            let left = try FileManager.default.contentsOfDirectory(atPath: harness.directory.path).filter { $0.hasPrefix("rederive.sqlite") }
            #expect(left.isEmpty, "\(left)")
        }
    }

    @Test func cancellingLeavesNothingWritten() async throws {
        try await CommandHarness.withHarness { harness in
            // Files the writer stores, then one whose reading blocks (a FIFO nobody writes yet).
            var files: [ImportFile] = []
            for index in 0..<20 {
                let path = try harness.file("scan-\(index).json", #"{"index":\#(index)}"#)
                files.append(ImportFile(path: path, key: "scan-\(index)"))
            }
            let fifo = harness.directory.appendingPathComponent("blocked.json").path
            #expect(mkfifo(fifo, 0o600) == 0)
            files.append(ImportFile(path: fifo, key: "blocked"))

            let store = try SQLiteStore(path: harness.databasePath)
            try await store.prepare(RoomScan.pipeline)
            let importer = FileImporter(files: files, parallelism: 2)
            let task = Task { try await importer.run(into: store, pipeline: RoomScan.pipeline, console: CapturedConsole().console) }

            // The writer has stored the first 20 inside its transaction once it holds the write lock.
            let other = try DatabaseQueue(path: harness.databasePath)
            // Only a bound on a hang: on a loaded machine the writer may take long to get there.
            let deadline = Date().addingTimeInterval(240)
            while (try? await other.writeWithoutTransaction({ db in try db.execute(sql: "BEGIN IMMEDIATE; ROLLBACK") })) != nil {
                #expect(Date() < deadline, "the import never took the write lock")
                if Date() >= deadline { break }
                try await Task.sleep(for: .milliseconds(5))
            }
            task.cancel()
            await #expect(throws: (any Error).self) { _ = try await task.value }
            // Let a worker blocked on opening the FIFO finish (if none got that far, there is no reader to wake).
            let writer = open(fifo, O_WRONLY | O_NONBLOCK)
            if writer >= 0 { close(writer) }

            let count = try await other.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM room_scans") }
            #expect(count == 0)
        }
    }

    @Test(arguments: InflateLibrary.available)
    func storedPayloadsInflateWithEitherLibraryAndReimportingWithTheOtherChangesNothing(compressing: InflateLibrary) async throws {
        try await CommandHarness.withHarness { harness in
            let files = RealExports.names.map {
                ImportFile(path: (RealExports.exportsDirectory as NSString).appendingPathComponent($0), key: $0)
            }
            let store = try SQLiteStore(path: harness.databasePath)
            try await store.prepare(RoomScan.pipeline)
            let first = try await FileImporter(files: files, parallelism: 3, library: compressing)
                .run(into: store, pipeline: RoomScan.pipeline, console: CapturedConsole().console)
            #expect(first.counts == ImportCounts(inserted: 13))

            let stored = try await Self.payloads(in: harness.databasePath)
            for name in RealExports.names {
                let payload = try #require(stored[name])
                let reference = PayloadCompressor(library: compressing).zlib(try RealExports.bytes(name))
                // The chosen compressor wrote it, and both inflaters read it back.
                #expect(payload == reference, "\(name)")
                for inflating in InflateLibrary.allCases {
                    #expect(try PayloadCodec(library: inflating).decode(payload) == RealExports.bytes(name), "\(name)")
                }
            }

            let other: InflateLibrary = compressing == .zlib ? .libdeflate : .zlib
            let again = try await FileImporter(files: files, parallelism: 3, library: other)
                .run(into: store, pipeline: RoomScan.pipeline, console: CapturedConsole().console)
            #expect(again.counts == ImportCounts(unchanged: 13))
            #expect(try await Self.payloads(in: harness.databasePath) == stored)
        }
    }

    @Test func theChosenLevelCompressesThePayloadsAndAnotherLevelLaterChangesNothing() async throws {
        try await CommandHarness.withHarness { harness in
            let name = RealExports.names[0]
            let json = try RealExports.bytes(name)
            let key = (name as NSString).deletingPathExtension
            let path = (RealExports.exportsDirectory as NSString).appendingPathComponent(name)
            let fastest = PayloadCompressor(level: 1).zlib(json)
            let smallest = PayloadCompressor(level: 9).zlib(json)
            #expect(fastest.count > smallest.count)

            let first = try await harness.rederive("import", "--level", "1", path)
            #expect(first.status == 0, "\(first.errors)")
            #expect(try await Self.payloads(in: harness.databasePath)[key] == fastest)

            let again = try await harness.rederive("import", "--level", "9", path)
            #expect(again.output.contains("0 new, 0 replaced, 1 unchanged"))
            #expect(try await Self.payloads(in: harness.databasePath)[key] == fastest)

            let stored = try await harness.rederive("import", "--level", "0", "--db", harness.directory.appendingPathComponent("plain.sqlite").path, path)
            #expect(stored.status == 0, "\(stored.errors)")
            let plain = try #require(try await Self.payloads(in: harness.directory.appendingPathComponent("plain.sqlite").path)[key])
            #expect(plain.count > json.count)
            #expect(try PayloadCodec().decode(plain) == json)

            let refused = try await harness.rederive("import", "--level", "10", path)
            #expect(refused.status == 64)
            #expect(refused.errors.contains("--level must be from 0 to 9, not 10"))
        }
    }

    @Test(.enabled(if: LibDeflate.loaded != nil))
    func theTwoCompressorsWriteDifferentStreams() throws {
        let json = try RealExports.bytes(RealExports.names[0])
        #expect(PayloadCompressor(library: .libdeflate).zlib(json) != PayloadCompressor(library: .zlib).zlib(json))
    }

    @Test func manyWorkersKeepEveryRecordUnderItsKeyInFileOrder() async throws {
        try await CommandHarness.withHarness { harness in
            let folder = harness.directory.appendingPathComponent("many", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            var contents: [String: String] = [:]
            for index in 0..<300 {
                // Sizes from a few bytes to 40 KB, so that workers finish out of order.
                let key = String(format: "scan-%04d", index)
                let text = #"{"key":"\#(key)","walls":[\#(Array(repeating: "1.25", count: (index * 7_919) % 8_000).joined(separator: ","))]}"#
                contents[key] = text
                try Data(text.utf8).write(to: folder.appendingPathComponent("\(key).json"))
            }
            let outcome = try await harness.rederive("import", "--parallel", "16", folder.path)
            #expect(outcome.status == 0, "\(outcome.errors)")
            let rows = try await harness.connection().read { db in
                try Row.fetchAll(db, sql: "SELECT scan_id, payload FROM room_scans ORDER BY id").map {
                    (key: $0["scan_id"] as String, payload: [UInt8]($0["payload"] as Data))
                }
            }
            #expect(rows.map(\.key) == contents.keys.sorted())
            for row in rows {
                #expect(try PayloadCodec().decode(row.payload) == Array(contents[row.key, default: ""].utf8), "\(row.key)")
            }
        }
    }

    /// Every stored payload by key, as another program reads them.
    static func payloads(in path: String) async throws -> [String: [UInt8]] {
        try await DatabaseQueue(path: path).read { db in
            var payloads: [String: [UInt8]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT scan_id, payload FROM room_scans") {
                payloads[row["scan_id"]] = [UInt8](row["payload"] as Data)
            }
            return payloads
        }
    }
}
