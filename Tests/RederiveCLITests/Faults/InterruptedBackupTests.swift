import Foundation
import Testing

/// A backup stopped by a signal removes the temporary copy it was writing and exits as interrupted:
/// no hidden `.NAME.UUID.partial` file is left to fill the disk.
@Suite("Interrupted backup", .serialized, .timeLimit(.minutes(5)))
struct InterruptedBackupTests {
    @Test func aBackupStoppedBySIGTERMLeavesNoPartialFileAndExitsInterrupted() async throws {
        try await CommandHarness.withHarness { harness in
            // Large enough that copying and checking it takes a while.
            #expect(try await harness.rederive("generate", "--count", "1000", "--seed", "2").status == 0)
            let backups = harness.directory.appendingPathComponent("backups", isDirectory: true)
            try FileManager.default.createDirectory(at: backups, withIntermediateDirectories: true)
            let destination = backups.appendingPathComponent("rooms-backup.sqlite").path

            let backup = try RederiveProcess.start(["backup", "--db", harness.databasePath, "--to", destination], in: harness.directory)
            func partials() -> [String] {
                ((try? FileManager.default.contentsOfDirectory(atPath: backups.path)) ?? []).filter { $0.hasSuffix(".partial") }
            }
            while partials().isEmpty, !backup.hasEnded {
                try await Task.sleep(for: .milliseconds(2))
            }
            #expect(!partials().isEmpty, "the backup ended before its copy was seen")
            backup.terminate()
            let outcome = try await backup.wait()

            #expect(!outcome.signaled && outcome.status == 143, "\(outcome.signaled ? "signal" : "status") \(outcome.status): \(outcome.errors)")
            #expect(outcome.errors.contains("rederive: backup interrupted; no backup was written"), "\(outcome.errors)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: backups.path) == [], "left behind")
        }
    }
}
