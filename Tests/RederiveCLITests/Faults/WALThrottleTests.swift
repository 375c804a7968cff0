import Foundation
import GRDB
import Rederive
import RederiveSQLite
import Testing

/// `run --max-wal-size` on SQLite: a reader that keeps the write-ahead log from being checkpointed
/// lets it grow past the bound, and the throttle holds until a checkpoint brings it back.
@Suite("SQLite write-ahead log throttle", .timeLimit(.minutes(2)))
struct WALThrottleTests {
    @Test func theThrottleHoldsWhileAReaderKeepsTheLogFromBeingCheckpointed() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rederive-wal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("app.sqlite").path
        let store = try SQLiteStore(path: path)
        let app = try DatabasePool(path: path)
        try await app.write { db in try db.execute(sql: "CREATE TABLE notes (body BLOB)") }
        let throttle = Throttle.writeAheadLog(above: 1 << 20, on: store)
        #expect(try await throttle.check() == nil)

        // A reader holds its snapshot while 4 MiB are written: none of it can be checkpointed.
        var reader: DatabaseSnapshot? = try app.makeSnapshot()
        for _ in 0..<16 {
            try await app.write { db in try db.execute(sql: "INSERT INTO notes VALUES (zeroblob(262144))") }
        }
        let held = try #require(try await throttle.check())
        #expect(held.contains("MiB not checkpointed > 1 MiB"), "\(held)")

        #expect(reader != nil)
        reader = nil
        #expect(try await throttle.check() == nil)
    }
}
