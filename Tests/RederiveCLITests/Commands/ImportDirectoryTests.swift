import Foundation
import RederiveTestSupport
import Testing

/// `import DIR` never leaves part of what it was given out without saying so: a directory it cannot
/// read is an error, as an unreadable file is, and a directory with nothing to import says so.
@Suite("Import directories", .serialized, .timeLimit(.minutes(5)))
struct ImportDirectoryTests {
    @Test func anUnreadableDirectoryFailsTheImportNamingItAndCreatesNoDatabase() async throws {
        try await CommandHarness.withHarness { harness in
            // Run as `nobody` when the tests run as root, for whom no directory is unreadable.
            chmod(harness.directory.path, 0o777)
            let exports = harness.directory.appendingPathComponent("exports", isDirectory: true)
            let locked = exports.appendingPathComponent("locked", isDirectory: true)
            try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
            try Data(try RealExports.bytes(RealExports.names[0])).write(to: exports.appendingPathComponent("open.json"))
            try Data(try RealExports.bytes(RealExports.names[1])).write(to: locked.appendingPathComponent("hidden.json"))
            chmod(exports.path, 0o755)
            chmod(locked.path, 0o000)
            defer { chmod(locked.path, 0o755) }
            let database = harness.directory.appendingPathComponent("rooms.sqlite").path

            let outcome = try await ReadOnlyFiles.runAsAnotherUser(["import", "--db", database, exports.path], in: harness.directory)
            #expect(!outcome.signaled && outcome.status == 1, "\(outcome.status): \(outcome.output) \(outcome.errors)")
            #expect(outcome.errors == "rederive: cannot read directory \(locked.path): Permission denied; nothing was imported\n", "\(outcome.errors)")
            #expect(!FileManager.default.fileExists(atPath: database))
        }
    }

    @Test func aDirectoryWithoutJSONFilesSaysThereIsNothingToImport() async throws {
        try await CommandHarness.withHarness { harness in
            let empty = harness.directory.appendingPathComponent("inbox", isDirectory: true)
            try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
            let outcome = try await harness.rederive("import", empty.path)
            #expect(outcome.status == 0)
            #expect(outcome.output.isEmpty, "\(outcome.output)")
            #expect(outcome.errors == "rederive: no .json files in \(empty.path): nothing to import\n", "\(outcome.errors)")
            #expect(!FileManager.default.fileExists(atPath: harness.databasePath))
        }
    }
}
