import Foundation
import Glibc
import Testing

/// An export that runs out of room says so in one line, naming the file, and leaves no temporary
/// file: it never blames the payloads, and the files it finished are whole.
@Suite("rederive export on a full disk", .serialized, .timeLimit(.minutes(5)))
struct ExportFullDiskTests {
    /// Twelve generated records, three of them deliberately broken, some inflating past 64 KiB: the
    /// hostile harness's prepared database.
    private static func prepared(_ harness: CommandHarness) async throws {
        let generated = try await harness.rederive("generate", "--count", "12", "--seed", "37", "--corrupt", "0.25")
        #expect(generated.status == 0, "\(generated.errors)")
    }

    @Test func exportPastAFileSizeLimitEndsInOneLineNamingTheFileAndLeavesNoTemporaryFile() async throws {
        try await CommandHarness.withHarness { harness in
            try await Self.prepared(harness)
            let out = harness.directory.appendingPathComponent("out").path
            // No file may grow past 64 KiB: writes fail with EFBIG, as the hostile harness's full disk.
            let export = try await RederiveProcess.run(
                ["export", "--db", harness.databasePath, out], wrapper: HostileDatabaseState.fullDisk.wrapper(in: harness.directory),
                in: harness.directory
            )
            try Self.expectOneLineAboutRoom(export, out: out)
        }
    }

    @Test(.enabled(if: TinyDisk.canMount, "mounting a tmpfs needs root"))
    func exportOntoAFullDiskEndsInOneLineSayingTheDiskIsFullAndLeavesNoTemporaryFile() async throws {
        try await CommandHarness.withHarness { harness in
            try await Self.prepared(harness)
            try await TinyDisk.with(bytes: 128 * 1024, at: harness.directory.appendingPathComponent("disk")) { disk in
                let out = disk.appendingPathComponent("out").path
                let export = try await RederiveProcess.run(["export", "--db", harness.databasePath, out], in: harness.directory)
                try Self.expectOneLineAboutRoom(export, out: out)
                #expect(export.errors.contains("the disk is full"), "\(export.errors)")
            }
        }
    }

    private static func expectOneLineAboutRoom(_ export: RederiveProcess.Outcome, out: String) throws {
        #expect(!export.signaled && export.status == 1, "\(export.status): \(export.errors)")
        let lines = export.errors.split(separator: "\n")
        #expect(lines.count == 1, "\(export.errors)")
        let line = try #require(lines.first.map(String.init))
        #expect(line.hasPrefix("rederive: ") && line.contains("no room to write \(out)/synthetic-37-"), "\(line)")
        #expect(!line.contains("payload") && !line.contains(".partial"), "\(line)")
        let left = try FileManager.default.contentsOfDirectory(atPath: out)
        #expect(left.allSatisfy { !$0.hasPrefix(".") && $0.hasSuffix(".json") }, "\(left)")
        #expect(line.contains("stopped after \(left.count) \(left.count == 1 ? "file" : "files"), each whole"), "\(line)")
    }
}

/// A tmpfs of a few pages, mounted for one test and unmounted after it: a disk that really fills.
enum TinyDisk {
    static let canMount: Bool = {
        guard geteuid() == 0 else { return false }
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("rederive-mount-probe-\(UUID().uuidString)")
        guard (try? FileManager.default.createDirectory(at: probe, withIntermediateDirectories: true)) != nil else { return false }
        defer { try? FileManager.default.removeItem(at: probe) }
        guard mount("tmpfs", probe.path, "tmpfs", 0, "size=64k") == 0 else { return false }
        umount(probe.path)
        return true
    }()

    static func with<T>(bytes: Int, at directory: URL, _ body: (URL) async throws -> T) async throws -> T {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        guard mount("tmpfs", directory.path, "tmpfs", 0, "size=\(bytes)") == 0 else {
            throw ProcessError("cannot mount a tmpfs at \(directory.path): \(String(cString: strerror(errno)))")
        }
        defer { umount2(directory.path, Int32(MNT_DETACH)) }
        return try await body(directory)
    }
}
