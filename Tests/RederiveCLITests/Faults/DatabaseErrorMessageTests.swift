import Foundation
import GRDB
import Glibc
import Testing

/// What the commands say when the database cannot serve them: one line, with rederive's one prefix,
/// naming the file and what is wrong, never SQLite's statement text, GRDB's or Foundation's words, or a
/// Swift error's name; and the exit status the README gives. Each command runs as the built executable.
@Suite("messages about databases that cannot serve a command", .serialized, .timeLimit(.minutes(5)))
struct DatabaseErrorMessageTests {
    func withDirectory(_ body: (URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("rederive-messages-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer {
            chmod(directory.path, 0o755)
            try? FileManager.default.removeItem(at: directory)
        }
        try await body(directory)
    }

    /// A database of `count` generated scans, everything checkpointed into the file itself.
    func generated(_ name: String, count: Int = 20, in directory: URL) async throws -> String {
        let path = directory.appendingPathComponent(name).path
        let outcome = try await RederiveProcess.run(["generate", "--count", String(count), "--db", path], in: directory)
        #expect(outcome.status == 0, "\(outcome.errors)")
        try await DatabaseQueue(path: path).writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        return path
    }

    /// Runs `body` while another program holds the database's write lock.
    func whileLocked(_ path: String, _ body: () async throws -> Void) async throws {
        let lock = try await ExclusiveLock.take(path)
        do {
            try await body()
        } catch {
            await lock.release()
            throw error
        }
        await lock.release()
    }

    @Test func aWritingCommandOnALockedDatabaseSaysItIsLocked() async throws {
        try await withDirectory { directory in
            let path = try await generated("locked.sqlite", in: directory)
            try await whileLocked(path) {
                for arguments in [["run", "--progress", "none"], ["invalidate"], ["reset", "--yes"], ["pause"]] {
                    let outcome = try await RederiveProcess.run(arguments + ["--db", path, "--busy-timeout", "0.2"], in: directory)
                    OneLineError.expect(outcome, mentioning: ["\(path) is locked: another program holds its lock"])
                }
            }
        }
    }

    /// The README: a watcher waits out a lock another program holds rather than fail, also when it
    /// is held as the watcher starts.
    @Test func watchStartedOnALockedDatabaseWaitsForItThenDerives() async throws {
        try await withDirectory { directory in
            let path = try await generated("locked.sqlite", in: directory)
            let watch = try await {
                var started: RederiveProcess?
                try await whileLocked(path) {
                    let process = try RederiveProcess.start(["watch", "--db", path, "--busy-timeout", "0.2"], in: directory)
                    started = process
                    while !process.errorsSoFar().contains("waiting for the database") && !process.hasEnded {
                        try await Task.sleep(for: .milliseconds(20))
                    }
                    #expect(!process.hasEnded, "\(process.errorsSoFar())")
                    #expect(process.errorsSoFar().contains("\(path) is locked"), "\(process.errorsSoFar())")
                }
                return try #require(started)
            }()
            while !watch.errorsSoFar().contains("run started") && !watch.hasEnded {
                try await Task.sleep(for: .milliseconds(20))
            }
            watch.terminate()
            let outcome = try await watch.wait()
            #expect(!outcome.signaled && outcome.status == 0, "\(outcome.status): \(outcome.errors)")
            #expect(outcome.errors.contains("the database is free again"), "\(outcome.errors)")
            #expect(!OneLineError.leaks.contains { outcome.errors.contains($0) }, "\(outcome.errors)")
        }
    }

    @Test func aTruncatedDatabaseIsNamedDamaged() async throws {
        try await withDirectory { directory in
            let path = try await generated("truncated.sqlite", count: 200, in: directory)
            let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            #expect(truncate(path, off_t(size / 3)) == 0)
            for arguments in [["status"], ["run", "--progress", "none"], ["invalidate"], ["verify", "--all"]] {
                let outcome = try await RederiveProcess.run(arguments + ["--db", path], in: directory)
                OneLineError.expect(outcome, mentioning: ["\(path) is damaged"])
            }
        }
    }

    @Test func aDatabaseWithACorruptPageIsNamedDamaged() async throws {
        try await withDirectory { directory in
            let path = try await generated("corrupt.sqlite", count: 200, in: directory)
            let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            let handle = try #require(FileHandle(forWritingAtPath: path))
            try handle.seek(toOffset: UInt64(size / 2 / 4096 * 4096))
            try handle.write(contentsOf: Data(repeating: 0xAB, count: 4 * 4096))
            try handle.close()
            let outcome = try await RederiveProcess.run(["verify", "--all", "--db", path], in: directory)
            OneLineError.expect(outcome, mentioning: ["\(path) is damaged"])
        }
    }

    /// As a full disk refuses writes: the kernel refuses writes beyond 256 KiB into any file
    /// (ignoring SIGXFSZ turns the signal into a failing write).
    static let fileSizeLimit = ["/bin/sh", "-c", #"trap '' XFSZ; exec prlimit --fsize=262144 -- "$@""#, "sh"]

    @Test func aFullDiskIsNamedForRunAndBackup() async throws {
        try await withDirectory { directory in
            let path = try await generated("full.sqlite", count: 300, in: directory)
            let run = try await RederiveProcess.run(["run", "--progress", "none", "--db", path], wrapper: Self.fileSizeLimit, in: directory)
            OneLineError.expect(run, mentioning: ["cannot write \(path)", "a full disk"])
            let copy = directory.appendingPathComponent("copy.sqlite").path
            let backup = try await RederiveProcess.run(["backup", "--db", path, "--to", copy], wrapper: Self.fileSizeLimit, in: directory)
            OneLineError.expect(backup, mentioning: ["cannot back up \(path) to \(copy)", "a full disk"])
            #expect(!FileManager.default.fileExists(atPath: copy))
        }
    }

    @Test func restoreFromATextFileSaysItIsNotADatabase() async throws {
        try await withDirectory { directory in
            let path = try await generated("rooms.sqlite", in: directory)
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let text = directory.appendingPathComponent("notes.txt").path
            try "not a backup\n".write(toFile: text, atomically: true, encoding: .utf8)
            let outcome = try await RederiveProcess.run(["restore", text, "--db", path], in: directory)
            OneLineError.expect(outcome, mentioning: ["\(text) is not a SQLite database"])
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["notes.txt", "rooms.sqlite"])
        }
    }

    @Test func restoreIntoADirectoryTheUserMayNotWriteSaysWhy() async throws {
        try await withDirectory { directory in
            chmod(directory.path, 0o755)
            let path = try await generated("rooms.sqlite", in: directory)
            let backup = try await RederiveProcess.run(["backup", "--db", path, "--to", directory.appendingPathComponent("rooms.bak").path], in: directory)
            #expect(backup.status == 0, "\(backup.errors)")
            let data = try ReadOnlyFiles.directory("data", in: directory, mode: 0o777)
            let target = data.appendingPathComponent("rooms.sqlite").path
            try FileManager.default.copyItem(atPath: path, toPath: target)
            chmod(target, 0o666)
            chmod(data.path, 0o555)
            defer { chmod(data.path, 0o777) }
            let outcome = try await ReadOnlyFiles.runAsAnotherUser(
                ["restore", directory.appendingPathComponent("rooms.bak").path, "--db", target], in: directory
            )
            OneLineError.expect(outcome, mentioning: ["next to \(target)", "Permission denied"])
        }
    }

    @Test func aDeviceOrANamedPipeAsTheDatabaseIsNamedForWhatItIs() async throws {
        try await withDirectory { directory in
            let fifo = directory.appendingPathComponent("pipe").path
            #expect(mkfifo(fifo, 0o644) == 0)
            let commands = [["status"], ["run", "--progress", "none"], ["run", "--create", "--progress", "none"], ["invalidate"], ["verify"]]
            for (path, kind) in [("/dev/null", "a device"), (fifo, "a named pipe (FIFO)")] {
                for arguments in commands {
                    let outcome = try await RederiveProcess.run(arguments + ["--db", path], in: directory)
                    OneLineError.expect(outcome, mentioning: ["\(path) is \(kind), not a database file"])
                }
            }
        }
    }

    @Test func anEmptyDatabaseSettingIsAUsageError() async throws {
        try await withDirectory { directory in
            for (arguments, environment, says) in [
                (["status"], ["REDERIVE_DB": ""], "rederive: $REDERIVE_DB is set but empty"),
                (["run"], ["REDERIVE_DB": ""], "rederive: $REDERIVE_DB is set but empty"),
                (["status", "--db", ""], [:], "rederive: --db is empty"),
            ] {
                let outcome = try await RederiveProcess.run(arguments, in: directory, environment: environment)
                #expect(!outcome.signaled && outcome.status == 64, "\(outcome.status): \(outcome.errors)")
                #expect(outcome.errors.hasPrefix(says), "\(outcome.errors)")
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
            }
        }
    }

    /// ArgumentParser's own errors carry rederive's prefix too, not a second one.
    @Test func aUsageErrorHasRederivesOnePrefix() async throws {
        try await withDirectory { directory in
            let outcome = try await RederiveProcess.run(["backup"], in: directory)
            #expect(outcome.status == 64)
            #expect(outcome.errors.hasPrefix("rederive: Missing expected argument '--to <path>'"), "\(outcome.errors)")
            #expect(!outcome.errors.contains("Error:"), "\(outcome.errors)")
        }
    }

}
