import Foundation
import GRDB
import Glibc
import Testing

/// Commands that only read work on a database the user may not write: a 0444 file in a directory the
/// user may write, and a file in a directory the user may not write. They leave no `-wal` or `-shm`
/// behind and the file byte for byte as it was. The built `rederive` runs as `nobody` when the tests
/// run as root, since root ignores file modes.
@Suite("commands on a read-only database", .timeLimit(.minutes(5)))
struct ReadOnlyDatabaseTests {
    /// Each command that only reads, with what its standard output starts with.
    static let readers: [(arguments: [String], output: String)] = [
        (["status"], "DB: 6 records"),
        (["status", "--format", "json"], "{"),
        (["failures"], "record"),
        (["history"], "run"),
        (["verify"], "verified 6 records"),
        (["report", "OUT/report.html"], "wrote the report to"),
        (["run", "--dry-run"], "dry run: derived 6 of 6 stale records"),
        (["backup", "--to", "OUT/copy.sqlite"], "backed up DB to OUT/copy.sqlite"),
    ]

    /// A derived database in WAL mode, closed, copied to `directory` and made 0444.
    func readOnlyCopy(in directory: URL, harness: CommandHarness) async throws -> String {
        #expect(try await harness.rederive("generate", "--count", "6", "--corrupt", "0.2").status == 0)
        #expect(try await harness.rederive("run", "--progress", "none").status == 3)
        #expect(try await harness.rederive("invalidate", "--processor", "floor_area").status == 0)
        // Everything into the file itself, so that a copy of the file alone holds the database.
        try await harness.connection().writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        let path = directory.appendingPathComponent("ro.sqlite").path
        try FileManager.default.copyItem(atPath: harness.databasePath, toPath: path)
        #expect(ReadOnlyFiles.journalMode(path) == "wal")
        chmod(path, 0o444)
        return path
    }

    @Test(arguments: [false, true])
    func readingCommandsWorkAndWriteNothing(directoryReadOnly: Bool) async throws {
        try await CommandHarness.withHarness { harness in
            let directory = try ReadOnlyFiles.directory("data", in: harness.directory, mode: 0o777)
            let output = try ReadOnlyFiles.directory("out", in: harness.directory, mode: 0o777)
            let path = try await readOnlyCopy(in: directory, harness: harness)
            if directoryReadOnly { chmod(directory.path, 0o555) }
            defer { chmod(directory.path, 0o777) }
            let before = try Data(contentsOf: URL(fileURLWithPath: path))

            for reader in Self.readers {
                let arguments = reader.arguments.map { $0.replacingOccurrences(of: "OUT", with: output.path) }
                let outcome = try await ReadOnlyFiles.runAsAnotherUser(arguments + ["--db", path], in: output)
                #expect(
                    !outcome.signaled && [0, 3, 4].contains(outcome.status) && outcome.errors.isEmpty,
                    "\(reader.arguments): \(outcome.status) \(outcome.errors)"
                )
                let expected = reader.output.replacingOccurrences(of: "DB", with: path).replacingOccurrences(of: "OUT", with: output.path)
                #expect(outcome.output.contains(expected), "\(reader.arguments): \(outcome.output)")
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["ro.sqlite"], "\(reader.arguments)")
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            #expect(ReadOnlyFiles.journalMode(path) == "wal")
        }
    }

    @Test func aCommandThatWritesSaysInOneLineThatItCannot() async throws {
        try await CommandHarness.withHarness { harness in
            let directory = try ReadOnlyFiles.directory("data", in: harness.directory, mode: 0o777)
            let path = try await readOnlyCopy(in: directory, harness: harness)
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let outcome = try await ReadOnlyFiles.runAsAnotherUser(["run", "--progress", "none", "--db", path], in: directory)
            #expect(!outcome.signaled && outcome.status == 1)
            #expect(outcome.errors.hasPrefix("rederive: cannot write \(path): the file is read-only for this user;"), "\(outcome.errors)")
            #expect(outcome.errors.filter { $0 == "\n" }.count == 1)
            #expect(!outcome.errors.contains("SQLite") && !outcome.errors.contains("grdb"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["ro.sqlite"])
        }
    }
}

/// Files, directories and processes for the read-only tests.
enum ReadOnlyFiles {
    /// A new directory with `mode`, whatever the umask.
    static func directory(_ name: String, in parent: URL, mode: mode_t) throws -> URL {
        let url = parent.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        chmod(url.path, mode)
        return url
    }

    /// The journal mode the file's header records: `wal`, or `delete` for rollback journals.
    static func journalMode(_ path: String) -> String {
        guard let handle = FileHandle(forReadingAtPath: path),
              let header = try? handle.read(upToCount: 20), header.count == 20
        else { return "unreadable" }
        try? handle.close()
        return header[18] == 2 ? "wal" : "delete"
    }

    /// Runs the built `rederive` from `directory`, as `nobody` when the tests run as root.
    static func runAsAnotherUser(_ arguments: [String], in directory: URL) async throws -> RederiveProcess.Outcome {
        let user = geteuid() == 0 ? ["/usr/sbin/runuser", "-u", "nobody", "--"] : []
        return try await RederiveProcess.run(
            arguments, wrapper: user + ["/bin/sh", "-c", #"cd "$0" && exec "$@""#, directory.path], in: directory
        )
    }
}
