import Foundation
import GRDB
import Rederive
import RederiveCodec
import RederiveSQLite
import RoomScan
import Testing

/// The SQLite store keeps each record's projection with its values, derives a bump of payload
/// processors from it, and falls back to the payload, counting why, whenever it cannot serve.
@Suite("Projections on SQLite")
struct ProjectionStoreTests {
    /// A database of every real export and a generated corpus, derived once.
    struct Database {
        let directory: URL
        let path: String
        let store: SQLiteStore
        let keys: [String]

        static func make(pipeline: Pipeline = RoomScan.pipeline) async throws -> Database {
            let directory = FileManager.default.temporaryDirectory.appending(path: "projection-tests-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let path = directory.appending(path: "rooms.sqlite").path
            let store = try SQLiteStore(path: path)
            try await store.prepare(pipeline)
            let corpus = try ProjectionCodecTests.corpus()
            try await DatabaseQueue(path: path).write { db in
                for (key, json) in corpus {
                    try db.execute(sql: "INSERT INTO room_scans (scan_id, payload) VALUES (?, ?)", arguments: [key, Data(PayloadCodec.encode(json))])
                }
            }
            return Database(directory: directory, path: path, store: store, keys: corpus.map(\.name))
        }

        func run(_ pipeline: Pipeline = RoomScan.pipeline, readsProjections: Bool = true) async throws -> RunSummary {
            var configuration = Runner.Configuration(parallelism: 2)
            configuration.readsProjections = readsProjections
            return try await Runner(store: store, pipelines: [pipeline], configuration: configuration).run()
        }

        /// A bump of every processor that reads the payload.
        func bump(_ pipeline: Pipeline = RoomScan.pipeline) async throws {
            _ = try await store.invalidate(pipeline, processors: RoomScan.payloadProcessors.map { pipeline.processors[$0].name }, keys: nil)
        }

        /// Every record's derived values, by key.
        func values() throws -> [String: [DatabaseValue]] {
            let columns = RoomScan.pipeline.outputColumns.map { "d.\($0.name.quotedDatabaseIdentifier)" }.joined(separator: ", ")
            return try DatabaseQueue(path: path).read { db in
                Dictionary(uniqueKeysWithValues: try Row.fetchAll(
                    db, sql: "SELECT s.scan_id, \(columns) FROM room_scans s JOIN room_scans_derived d ON d.id = s.id"
                ).map { ($0[0] as String, Array($0.databaseValues.dropFirst())) })
            }
        }

        /// Whether every projection written from the payload a record holds now is the projection of
        /// that payload decoded afresh; returns how many were checked.
        func projectionsAgreeWithPayloads() throws -> Int {
            try DatabaseQueue(path: path).read { db in
                let rows = try Row.fetchAll(db, sql: """
                    SELECT s.scan_id, s.payload, p.bytes, p.checksum, p.version FROM room_scans s
                    JOIN rederive_records r ON r.source = 'room_scans' AND r.record_id = s.id
                    JOIN rederive_projections p ON p.pipeline = 'roomscan' AND p.record_id = s.id AND p.generation = r.generation
                    """)
                for row in rows {
                    let payload = try PayloadCodec().decode([UInt8](row[1] as Data))
                    let bytes = [UInt8](row[2] as Data)
                    #expect(bytes == (try CapturedRoom(json: payload)).projectionBytes, "\(row[0] as String)")
                    #expect(PayloadCodec.digest(bytes) == row[3] as Int64)
                }
                return rows.count
            }
        }

        func execute(_ sql: String, _ arguments: StatementArguments = []) throws {
            try DatabaseQueue(path: path).write { db in try db.execute(sql: sql, arguments: arguments) }
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    @Test("the first run writes every projection; a bump derives every record from it, to the same values")
    func bumpDerivesFromProjections() async throws {
        let database = try await Database.make()
        defer { database.remove() }
        let count = database.keys.count
        let first = try await database.run()
        #expect(first.counts == RunCounts(changed: count))
        #expect(first.projections.used == 0 && first.projections.fallbacks == [.missing: count])
        #expect(try database.projectionsAgreeWithPayloads() == count)
        let derived = try database.values()

        try await database.bump()
        let bump = try await database.run()
        #expect(bump.counts == RunCounts(unchanged: count))
        #expect(bump.projections.used == count && bump.projections.fallbacks.isEmpty)
        #expect(try database.values() == derived)

        // Without projections, the same values again, from payloads, and the projections written anew.
        try await database.bump()
        let fromPayloads = try await database.run(readsProjections: false)
        #expect(fromPayloads.counts == RunCounts(unchanged: count))
        #expect(fromPayloads.projections.used == 0 && fromPayloads.projections.fallbacks.isEmpty)
        #expect(try database.projectionsAgreeWithPayloads() == count)
    }

    @Test("a payload replaced by another program, a flipped byte, an older version and a missing projection each fall back")
    func everyFallbackReasonFallsBack() async throws {
        let database = try await Database.make()
        defer { database.remove() }
        let count = database.keys.count
        _ = try await database.run()
        let id: (String) throws -> Int64 = { key in
            try DatabaseQueue(path: database.path).read { db in try Int64.fetchOne(db, sql: "SELECT id FROM room_scans WHERE scan_id = ?", arguments: [key])! }
        }
        let (replaced, flipped, older, missing) = (database.keys[0], database.keys[1], database.keys[2], database.keys[3])

        // Another program replaces a payload with another export's.
        let other = try Fixtures.export(Fixtures.exportNames[5])
        try database.execute("UPDATE room_scans SET payload = ? WHERE scan_id = ?", [Data(PayloadCodec.encode(other)), replaced])
        // A byte flipped inside the first wall's length: the bytes would still decode, to another length.
        let flippedID = try id(flipped)
        let stored = try await DatabaseQueue(path: database.path).read { db in
            [UInt8](try Data.fetchOne(db, sql: "SELECT bytes FROM rederive_projections WHERE record_id = ?", arguments: [flippedID])!)
        }
        var damaged = stored
        damaged[4 + 4] ^= 0x01
        let wrong = try CapturedRoom(projection: damaged)
        let right = try CapturedRoom(projection: stored)
        #expect(wrong.wallLength != right.wallLength)
        try database.execute("UPDATE rederive_projections SET bytes = ? WHERE record_id = ?", [Data(damaged), flippedID])
        try database.execute("UPDATE rederive_projections SET version = 0 WHERE record_id = ?", [try id(older)])
        try database.execute("DELETE FROM rederive_projections WHERE record_id = ?", [try id(missing)])

        try await database.bump()
        let bump = try await database.run()
        #expect(bump.projections.used == count - 4)
        #expect(bump.projections.fallbacks == [.payloadChanged: 1, .checksumMismatch: 1, .versionChanged: 1, .missing: 1])
        // Each record's values are those of its payload now: the replaced one's are the other export's.
        let values = try database.values()
        let fresh = try await Database.make()
        defer { fresh.remove() }
        _ = try await fresh.run()
        let expected = try fresh.values()
        #expect(values[replaced] == expected[Fixtures.exportNames[5]])
        for key in [flipped, older, missing] {
            #expect(values[key] == expected[key], "\(key)")
        }
        // Every projection is written again from the payload it now belongs to.
        #expect(try database.projectionsAgreeWithPayloads() == count)
        try await database.bump()
        let again = try await database.run()
        #expect(again.projections.used == count && again.projections.fallbacks.isEmpty)
    }

    @Test("a new projection version reads none of the older projections, and writes them all again")
    func aNewProjectionVersionFallsBack() async throws {
        let database = try await Database.make()
        defer { database.remove() }
        let count = database.keys.count
        _ = try await database.run()
        let bumped = Projection<CapturedRoom>(version: RoomScan.projection.version + 1, encode: { $0.projectionBytes }, decode: { try CapturedRoom(projection: $0) })
        let pipeline = Pipeline(
            name: "roomscan", table: "room_scans", keyColumn: "scan_id", layout: .companion(table: "room_scans_derived"),
            decode: { try CapturedRoom(json: $0) }, projection: bumped, processors: RoomScan.processors
        )
        try await database.bump(pipeline)
        let run = try await database.run(pipeline)
        #expect(run.projections.used == 0 && run.projections.fallbacks == [.versionChanged: count])
        #expect(run.counts == RunCounts(unchanged: count))
        let versions = try await DatabaseQueue(path: database.path).read { db in
            try Int.fetchAll(db, sql: "SELECT DISTINCT version FROM rederive_projections")
        }
        #expect(versions == [bumped.version])
    }

    @Test("reset clears the pipeline's projections with its derived state")
    func resetClearsProjections() async throws {
        let database = try await Database.make()
        defer { database.remove() }
        _ = try await database.run()
        _ = try await database.store.reset(RoomScan.pipeline)
        #expect(try database.projectionsAgreeWithPayloads() == 0)
        let run = try await database.run()
        #expect(run.projections.fallbacks == [.missing: database.keys.count])
    }
}
