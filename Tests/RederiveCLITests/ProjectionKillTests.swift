import Foundation
import GRDB
import RederiveCodec
import RoomScan
import RoomScanGenerator
import Testing

/// A run that writes projections, killed with SIGKILL while another program replaces payloads, leaves
/// no current projection that disagrees with its record's payload: each is committed with the values
/// of the same payload, fenced by its generation.
@Suite("Projections survive kill -9", .serialized, .timeLimit(.minutes(5)))
struct ProjectionKillTests {
    @Test func aKilledRunLeavesNoProjectionThatDisagreesWithItsPayload() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rederive-projection-kill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("rooms.sqlite").path
        let generated = try await RederiveProcess.run(
            ["generate", "--db", database, "--count", "300", "--seed", "24", "--corrupt", "0"], in: directory
        )
        try #require(generated.status == 0, "\(generated.errors)")

        // Slowed down to 20 s for the corpus, so that it is killed mid-run after a few commits even on a loaded machine.
        let killed = try RederiveProcess.start(
            ["run", "--db", database, "--max-rate", "15", "--batch-size", "10", "--progress", "json"], in: directory
        )
        _ = try await killed.waitForOutput { $0.components(separatedBy: "\"event\":\"progress\"").count > 2 }
        // Another program replaces payloads while the run derives: some were committed, some in flight.
        let generator = RoomScanGenerator(seed: 99)
        let queue = try DatabaseQueue(path: database)
        try await queue.write { db in
            for id in stride(from: 1, through: 300, by: 7) {
                try db.execute(
                    sql: "UPDATE room_scans SET payload = ? WHERE id = ?",
                    arguments: [Data(PayloadCodec.encode(generator.scan(at: id))), id]
                )
            }
        }
        _ = try await killed.waitForOutput { $0.components(separatedBy: "\"event\":\"progress\"").count > 4 }
        killed.kill()
        let outcome = try await killed.wait()
        #expect(outcome.signaled && outcome.status == SIGKILL, "\(outcome.status): \(outcome.errors)")

        let checked = try await Self.checkProjections(queue)
        #expect(checked > 0 && checked < 300, "\(checked) current projections after the kill")

        // The next run finishes the work; every record then has a current projection that agrees.
        let next = try await RederiveProcess.run(["run", "--db", database, "--progress", "none"], in: directory)
        #expect(next.status == 0, "\(next.errors)")
        #expect(next.output.contains("projections: "), "\(next.output)")
        #expect(try await Self.checkProjections(queue) == 300)
    }

    /// Checks every current projection (of its record's generation) against a fresh decode of its
    /// record's payload, and its checksum; returns how many there are.
    static func checkProjections(_ queue: DatabaseQueue) async throws -> Int {
        let rows = try queue.read { db in
            try Row.fetchAll(db, sql: """
                SELECT s.id, s.payload, p.bytes, p.checksum FROM room_scans s
                JOIN rederive_records r ON r.source = 'room_scans' AND r.record_id = s.id
                JOIN rederive_projections p ON p.pipeline = 'roomscan' AND p.record_id = s.id AND p.generation = r.generation
                """)
        }
        for row in rows {
            let bytes = [UInt8](row[2] as Data)
            let payload = try PayloadCodec().decode([UInt8](row[1] as Data))
            #expect(bytes == (try CapturedRoom(json: payload)).projectionBytes, "record \(row[0] as Int64)")
            #expect(PayloadCodec.digest(bytes) == row[3] as Int64, "record \(row[0] as Int64)")
        }
        return rows.count
    }
}
