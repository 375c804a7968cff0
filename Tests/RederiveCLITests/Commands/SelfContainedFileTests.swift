import Foundation
import GRDB
import Rederive
import RederiveTestSupport
import RoomScan
import Testing

/// A command that finished leaves a database file that holds all its work by itself: nothing of it
/// only in the `-wal` beside it, so that the file can be copied, attached or shipped alone.
@Suite("Self-contained file", .serialized, .timeLimit(.minutes(5)))
struct SelfContainedFileTests {
    @Test func aFinishedImportAndEachFinishedRunLeaveEveryCommitInTheFileItself() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("rederive-self-contained-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("rooms.sqlite").path
        let records = RealExports.names.count
        #expect(records > 0)

        // A checkpoint left to chance misses about a third of the time: try a few.
        for attempt in 1...3 {
            let imported = try await RederiveProcess.run(["import", "--db", database, RealExports.exportsDirectory], in: directory)
            #expect(!imported.signaled && imported.status == 0, "\(imported.status): \(imported.errors)")
            let afterImport = try Self.copyAlone(database, attempt: attempt, in: directory)
            #expect(try Self.count("SELECT count(*) FROM room_scans", in: afterImport) == records, "import \(attempt)")
            try Self.expectNoLogLeft(database)

            let invalidated = try await RederiveProcess.run(["invalidate", "--db", database], in: directory)
            #expect(invalidated.status == 0, "\(invalidated.status): \(invalidated.errors)")
            let run = try await RederiveProcess.run(["run", "--db", database, "--progress", "none"], in: directory)
            #expect(!run.signaled && run.status == 0, "\(run.status): \(run.errors)")
            try Self.expectNoLogLeft(database)

            // The file alone, copied without its -wal, has every record up to date.
            let afterRun = try Self.copyAlone(database, attempt: attempt, in: directory)
            let current = try Self.count("SELECT count(*) FROM rederive_stamps WHERE current = 1", in: afterRun)
            #expect(current == records * RoomScan.pipeline.processors.count, "run \(attempt): \(current) current stamps")
        }
    }

    /// The `-wal` beside `database` is gone, or empty.
    static func expectNoLogLeft(_ database: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let log = database + "-wal"
        guard FileManager.default.fileExists(atPath: log) else { return }
        let size = try FileManager.default.attributesOfItem(atPath: log)[.size] as? Int ?? -1
        #expect(size == 0, "\(size) bytes left in \(log)", sourceLocation: sourceLocation)
    }

    /// A copy of the database file alone, as a user copying or shipping it makes.
    static func copyAlone(_ database: String, attempt: Int, in directory: URL) throws -> String {
        let copies = directory.appendingPathComponent("copy-\(attempt)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: copies, withIntermediateDirectories: true)
        let copy = copies.appendingPathComponent("rooms.sqlite").path
        try FileManager.default.copyItem(atPath: database, toPath: copy)
        return copy
    }

    static func count(_ sql: String, in database: String) throws -> Int {
        try DatabaseQueue(path: database).read { db in try Int.fetchOne(db, sql: sql) ?? 0 }
    }
}
