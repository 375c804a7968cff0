import Foundation
import Testing

/// Small edges of the command line: each mistake is named, and each thing done (or not) is said.
@Suite("command edges", .timeLimit(.minutes(5)))
struct CommandEdgeTests {
    @Test func aMisspeltCommandIsNamedWithTheNearestOne() async throws {
        try await CommandHarness.withHarness { harness in
            for arguments in [["stauts"], ["stauts", "--help"], ["stauts", "--db", harness.databasePath]] {
                let outcome = try await harness.rederive(arguments)
                #expect(outcome.status == 64, "\(arguments)")
                #expect(outcome.errors.hasPrefix("rederive: unknown command 'stauts'; did you mean 'status'?"), "\(outcome.errors)")
                #expect(outcome.output.isEmpty, "\(arguments): \(outcome.output)")
            }
            let far = try await harness.rederive("frobnicate")
            #expect(far.status == 64)
            #expect(far.errors.hasPrefix("rederive: unknown command 'frobnicate' (see --help"), "\(far.errors)")
            #expect(try await harness.rederive("help", "status").status == 0)
            #expect(try await harness.rederive("--version").status == 0)
        }
    }

    @Test func missingRunsMigrationsAndZeroLimitsAreNamed() async throws {
        try await CommandHarness.withHarness { harness in
            _ = try await harness.rederive("generate", "--count", "20")
            _ = try await harness.rederive("run", "--progress", "none")
            let limit = try await harness.rederive("history", "--limit", "0")
            #expect(limit.status == 64)
            #expect(limit.errors.contains("--limit must be at least 1"), "\(limit.errors)")
            let run = try await harness.rederive("failures", "--run", "999")
            #expect(run.status == 1)
            #expect(run.errors.hasPrefix("rederive: no run 999 in "), "\(run.errors)")
            #expect(try await harness.rederive("failures", "--run", "1").output == "no failures\n")
            let migration = try await harness.rederive("migrate", "--to", "nope")
            #expect(migration.status == 1)
            #expect(migration.errors.hasPrefix("rederive: no schema migration \"nope\""), "\(migration.errors)")
        }
    }

    @Test func backupToADirectorySaysItIsOne() async throws {
        try await CommandHarness.withHarness { harness in
            _ = try await harness.rederive("generate", "--count", "5")
            let directory = harness.directory.appendingPathComponent("backups").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for arguments in [["backup", "--to", directory, "--force"], ["backup", "--to", directory]] {
                let outcome = try await harness.rederive(arguments)
                #expect(outcome.status == 1)
                #expect(outcome.errors.hasPrefix("rederive: \(directory) is a directory; --to names the backup file"), "\(outcome.errors)")
            }
            var isDirectory: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) && isDirectory.boolValue)
        }
    }

    @Test func runBackupSaysWhetherItTookOne() async throws {
        try await CommandHarness.withHarness { harness in
            _ = try await harness.rederive("generate", "--count", "5")
            let backups = harness.databasePath + ".backups"
            let first = try await harness.rederive("run", "--backup", "--progress", "none")
            #expect(first.errors.contains("backed up to \(backups)/"), "\(first.errors)")
            let second = try await harness.rederive("run", "--backup", "--progress", "none")
            #expect(second.status == 0)
            #expect(second.errors.contains("no backup taken: every record"), "\(second.errors)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: backups).filter { $0.hasSuffix(".sqlite") }.count == 1)
        }
    }
}
