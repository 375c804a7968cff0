import Foundation
import GRDB
import RederiveCLI
import Testing

/// A signal ends every command with 130 or 143, never by itself, whenever it comes: while the command
/// is still starting (its database locked by another program), while a restore copies its backup,
/// and a second signal after the first.
@Suite("Early signals", .serialized, .timeLimit(.minutes(5)))
struct EarlySignalTests {
    /// Whether the process at `pid` catches or ignores SIGTERM, as `/proc/PID/status` says: it has
    /// taken over its signals.
    static func handlesSIGTERM(_ pid: pid_t) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return false }
        let bit = UInt64(1) << UInt64(SIGTERM - 1)
        return status.split(separator: "\n").contains { line in
            guard line.hasPrefix("SigCgt:") || line.hasPrefix("SigIgn:") else { return false }
            let mask = UInt64(line.split(separator: "\t").last.map(String.init) ?? "", radix: 16) ?? 0
            return mask & bit != 0
        }
    }

    /// Waits, boundedly, until `process` handles SIGTERM or has ended.
    static func waitUntilHandlingSignals(_ process: RederiveProcess) async throws {
        for _ in 0 ..< 1_000 where !handlesSIGTERM(process.child.pid) && !process.hasEnded {
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Whether the process at `pid` has `path` open: it has parsed its arguments and opened its database.
    static func hasOpen(_ pid: pid_t, _ path: String) -> Bool {
        let descriptors = "/proc/\(pid)/fd"
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        return ((try? FileManager.default.contentsOfDirectory(atPath: descriptors)) ?? []).contains { entry in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(descriptors)/\(entry)")) == target
        }
    }

    @Test func sigtermWhileARunWaitsForALockedDatabaseEndsItWith143NotByTheSignal() async throws {
        try await CommandHarness.withHarness { harness in
            #expect(try await harness.rederive("generate", "--count", "2").status == 0)
            // Out of WAL mode, another program's exclusive lock keeps every connection out, readers too.
            let queue = try DatabaseQueue(path: harness.databasePath)
            _ = try await queue.writeWithoutTransaction { db in try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE") }
            try queue.close()
            let lock = try await ExclusiveLock.take(harness.databasePath)

            let run = try RederiveProcess.start(
                ["run", "--db", harness.databasePath, "--busy-timeout", "60", "--progress", "none"], in: harness.directory
            )
            // Waiting for the lock, not still parsing its arguments (a signal then ends it at once).
            for _ in 0 ..< 3_000 where !Self.hasOpen(run.child.pid, harness.databasePath) && !run.hasEnded {
                try await Task.sleep(for: .milliseconds(10))
            }
            run.terminate()
            let outcome = try await run.wait()
            await lock.release()

            #expect(!outcome.signaled && outcome.status == 143, "\(outcome.signaled ? "signal" : "status") \(outcome.status): \(outcome.errors)")
            #expect(outcome.errors.hasSuffix("rederive: interrupted before the command could start its work\n"), "\(outcome.errors)")
        }
    }

    @Test func aRestoreStoppedBySIGTERMLeavesTheDatabaseAsItWasAndNoPartialFile() async throws {
        try await CommandHarness.withHarness { harness in
            // The backup: large enough that copying and checking it takes a while.
            let backup = harness.directory.appendingPathComponent("backup.sqlite").path
            #expect(try await harness.rederive("generate", "--count", "1000", "--seed", "2", "--db", backup).status == 0)
            let data = harness.directory.appendingPathComponent("data", isDirectory: true)
            try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
            let database = data.appendingPathComponent("rooms.sqlite").path
            #expect(try await harness.rederive("generate", "--count", "3", "--db", database).status == 0)
            let before = try Data(contentsOf: URL(fileURLWithPath: database))
            let filesBefore = try FileManager.default.contentsOfDirectory(atPath: data.path).sorted()

            let restore = try RederiveProcess.start(["restore", backup, "--db", database], in: harness.directory)
            func partials() -> [String] {
                ((try? FileManager.default.contentsOfDirectory(atPath: data.path)) ?? []).filter { $0.hasSuffix(".partial") }
            }
            while partials().isEmpty, !restore.hasEnded {
                try await Task.sleep(for: .milliseconds(1))
            }
            restore.terminate()
            let outcome = try await restore.wait()

            #expect(!outcome.signaled && [0, 143].contains(outcome.status), "\(outcome.signaled ? "signal" : "status") \(outcome.status): \(outcome.errors)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: data.path).sorted() == filesBefore, "left behind")
            if outcome.status == 143 {
                #expect(outcome.errors.hasSuffix("rederive: restore interrupted; its temporary copy was removed\n"), "\(outcome.errors)")
                #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == before, "the database changed")
            }
        }
    }

    @Test func aSecondInterruptEndsARunAtOnceWith130NotByTheSignal() async throws {
        let payloads = (0 ..< 4).map { TrapFixtureCorpus.payload(label: $0 == 1 ? "hang" : "good-\($0)", index: $0) }
        try await TrapFixtureCorpus.with(payloads) { directory, database in
            let run = try RederiveProcess.start(
                ["run", "--db", database, "--parallel", "1", "--progress", "none", "--timeout", "3600"], in: directory,
                program: TrapFixtureCorpus.program
            )
            // Once it is deriving (the record that hangs keeps it so), the first interrupt asks it to stop.
            try await Self.waitUntilHandlingSignals(run)
            run.interrupt()
            while !run.errorsSoFar().contains("signal again to quit now"), !run.hasEnded {
                try await Task.sleep(for: .milliseconds(5))
            }
            run.interrupt()
            let outcome = try await run.wait()
            #expect(!outcome.signaled && outcome.status == 130, "\(outcome.signaled ? "signal" : "status") \(outcome.status): \(outcome.errors)")
        }
    }
}
