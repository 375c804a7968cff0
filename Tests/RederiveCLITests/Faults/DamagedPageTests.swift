import Foundation
import GRDB
import RederiveCodec
import Testing

/// A damaged page of the database file that holds one record's payload fails that record, not the
/// run: the others are derived and committed, and `failures` names the record and why.
@Suite("A damaged page", .timeLimit(.minutes(3)))
struct DamagedPageTests {
    @Test func aPayloadOnADamagedPageFailsItsRecordAndTheRunDerivesTheRest() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("rederive-damaged-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("rooms.sqlite").path
        let generated = try await RederiveProcess.run(["generate", "--count", "12", "--db", path], in: directory)
        #expect(generated.status == 0, "\(generated.errors)")
        let damaged = try Self.damageOnePayload(path)

        let run = try await RederiveProcess.run(["run", "--db", path, "--progress", "none"], in: directory)
        // Exit status 3: the run completed, and a record failed.
        #expect(run.status == 3, "\(run.output) \(run.errors)")
        #expect(run.output.contains("7 derived") && run.output.contains("1 failed"), "\(run.output)")

        let failures = try await RederiveProcess.run(["failures", "--db", path, "--format", "json"], in: directory)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(failures.output.utf8)) as? [[String: Any]])
        #expect(!entries.isEmpty && entries.allSatisfy { $0["recordId"] as? Int == Int(damaged) })
        // The processors that read the payload fail for the damage; those that read them, upstream.
        let unreadable = entries.filter { $0["kind"] as? String == "decompression" }
        #expect(!unreadable.isEmpty)
        #expect(unreadable.allSatisfy { ($0["message"] as? String)?.contains("damaged page of the database file") == true })
        let counts = try await DatabaseQueue(path: path).read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM room_scans_derived WHERE wall_count IS NOT NULL")
        }
        #expect(counts == 7)
    }

    /// Leaves 8 records whose payloads fit in one page of 64 KiB, rewrites one of them as plain JSON
    /// that spans several pages, and overwrites one of those pages; returns that record's id.
    static func damageOnePayload(_ path: String) throws -> Int64 {
        let queue = try DatabaseQueue(path: path)
        let damaged: Int64 = try queue.writeWithoutTransaction { db in
            try db.execute(sql: "DELETE FROM room_scans WHERE length(payload) > 60000")
            try db.execute(sql: "PRAGMA journal_mode = DELETE")
            try db.execute(sql: "PRAGMA page_size = 65536")
            try db.execute(sql: "VACUUM")
            let overflowing = try Int.fetchOne(db, sql: "SELECT count(*) FROM dbstat WHERE name = 'room_scans' AND pagetype = 'overflow'")
            try #require(overflowing == 0, "every payload left fits in its page")
            let (id, stored) = try #require(try Row.fetchOne(db, sql: "SELECT id, payload FROM room_scans ORDER BY id LIMIT 1 OFFSET 4")
                .map { ($0["id"] as Int64, [UInt8]($0["payload"] as Data)) })
            // Plain JSON is a payload format; whitespace after the value makes it span pages.
            let json = try PayloadCodec().decode(stored) + [UInt8](repeating: 0x20, count: 300_000)
            try db.execute(sql: "UPDATE room_scans SET payload = ? WHERE id = ?", arguments: [Data(json), id])
            return id
        }
        let pages = try queue.read { db in
            try Int.fetchAll(db, sql: "SELECT pageno FROM dbstat WHERE name = 'room_scans' AND pagetype = 'overflow' ORDER BY pageno")
        }
        try queue.close()
        let page = try #require(pages.dropFirst(pages.count / 2).first)
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: UInt64(page - 1) * 65536)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 65536))
        try handle.close()
        return damaged
    }
}
