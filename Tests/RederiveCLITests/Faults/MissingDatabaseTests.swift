import Foundation
import Testing

/// A command that reads, or changes what a database already holds, refuses a path with no database
/// and leaves nothing behind; only import, generate, demo and run --create create the file.
@Suite("commands on a missing database", .timeLimit(.minutes(5)))
struct MissingDatabaseTests {
    static let refusing: [[String]] = [
        ["status"],
        ["status", "--format", "json"],
        ["failures"],
        ["failures", "--format", "csv"],
        ["history"],
        ["verify"],
        ["invalidate"],
        ["rollback", "1"],
        ["reset", "--yes"],
        ["run", "--dry-run"],
    ]

    /// Names of everything in `directory`.
    func contents(_ directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    @Test(arguments: refusing)
    func aReadingCommandRefusesAMissingFileAndCreatesNothing(arguments: [String]) async throws {
        try await CommandHarness.withHarness { harness in
            let path = harness.directory.appendingPathComponent("typo.sqlite").path
            let outcome = try await harness.rederive(arguments + ["--db", path])
            #expect(outcome.status == 1)
            #expect(outcome.errors == "rederive: no database at \(path) (create one with rederive import or rederive generate)\n")
            #expect(outcome.output.isEmpty)
            #expect(try contents(harness.directory) == [])
        }
    }

    @Test func theExecutableExitsWithStatusOneAndLeavesTheDirectoryEmpty() async throws {
        try await CommandHarness.withHarness { harness in
            // Run from the directory, with a relative path, as a person with a typo would.
            let outcome = try await RederiveProcess.run(
                ["status", "--db", "typo.sqlite"], wrapper: ["/bin/sh", "-c", #"cd "$0" && exec "$@""#, harness.directory.path],
                in: harness.directory
            )
            #expect(!outcome.signaled && outcome.status == 1)
            #expect(outcome.errors == "rederive: no database at typo.sqlite (create one with rederive import or rederive generate)\n")
            #expect(outcome.output.isEmpty)
            #expect(try contents(harness.directory) == [])
        }
    }

    @Test func anUnknownPipelineIsStillReportedFirst() async throws {
        try await CommandHarness.withHarness { harness in
            let outcome = try await harness.rederive("status", "--pipeline", "nope", "--db", harness.directory.appendingPathComponent("typo.sqlite").path)
            #expect(outcome.status == 1)
            #expect(outcome.errors.contains("no pipeline named \"nope\""))
            #expect(try contents(harness.directory) == [])
        }
    }

    @Test func writingCommandsCreateTheDatabaseAndReadingOnesThenWork() async throws {
        try await CommandHarness.withHarness { harness in
            let path = harness.directory.appendingPathComponent("new.sqlite").path
            let generated = try await harness.rederive("generate", "--count", "3", "--db", path)
            #expect(generated.status == 0, "\(generated.errors)")
            #expect(FileManager.default.fileExists(atPath: path))
            let status = try await harness.rederive("status", "--db", path)
            #expect(status.status == 0)
            #expect(status.output.hasPrefix("\(path): 3 records"))
        }
    }

    @Test func runRefusesAMissingFileAndCreatesNothing() async throws {
        try await CommandHarness.withHarness { harness in
            let path = harness.directory.appendingPathComponent("typo2.sqlite").path
            let run = try await harness.rederive("run", "--progress", "none", "--db", path)
            #expect(run.status == 1)
            #expect(run.errors == "rederive: no database at \(path) (create one with rederive import or rederive generate, or run with --create)\n")
            #expect(run.output.isEmpty)
            #expect(try contents(harness.directory) == [])
        }
    }

    @Test func runWithCreateCreatesAMissingDatabase() async throws {
        try await CommandHarness.withHarness { harness in
            let path = harness.directory.appendingPathComponent("fresh.sqlite").path
            let run = try await harness.rederive("run", "--create", "--progress", "none", "--db", path)
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.output.contains("0 derived, 0 unchanged, 0 failed"))
            #expect(FileManager.default.fileExists(atPath: path))
        }
    }

    @Test(arguments: [["status"], ["run", "--progress", "none"], ["run", "--create"], ["generate", "--count", "1"], ["invalidate"]])
    func aDirectoryIsNamedAsOne(arguments: [String]) async throws {
        try await CommandHarness.withHarness { harness in
            let path = harness.directory.path
            let outcome = try await harness.rederive(arguments + ["--db", path])
            #expect(outcome.status == 1)
            #expect(outcome.errors == "rederive: \(path) is a directory, not a database file; name the database file inside it\n")
            #expect(try contents(harness.directory) == [])
        }
    }

    @Test(arguments: [["status"], ["run"], ["import", "x.json"]])
    func aURLOfAnUnsupportedSchemeIsAUsageError(arguments: [String]) async throws {
        try await CommandHarness.withHarness { harness in
            let outcome = try await harness.rederive(arguments + ["--db", "mysql://app:secret@db.example/rooms"])
            #expect(outcome.status == 64)
            #expect(outcome.errors.contains(
                "--db mysql://app:***@db.example/rooms is a mysql:// URL, which no rederive store reads; give a SQLite file path, or a postgres:// or postgresql:// URL"
            ), "\(outcome.errors)")
            #expect(!outcome.errors.contains("secret"))
            #expect(try contents(harness.directory) == [])
        }
    }
}
