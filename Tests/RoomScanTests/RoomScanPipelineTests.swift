import Foundation
import GRDB
import Rederive
import RederiveCodec
import RederiveSQLite
import RoomScan
import Testing

@Suite("The RoomScan pipeline")
struct RoomScanPipelineTests {
    /// What an app reads: the README's join for the companion table, the scan's own row inline.
    static func storedValues(_ path: String, layout: Pipeline.Layout) throws -> [String: [DerivedValue]] {
        let columns = RoomScan.pipeline.outputColumns.map { $0.name.quotedDatabaseIdentifier }
        let sql = switch layout {
        case .companion:
            "SELECT s.scan_id, \(columns.map { "d.\($0)" }.joined(separator: ", ")) FROM room_scans s JOIN room_scans_derived d ON d.id = s.id"
        case .inline:
            "SELECT scan_id, \(columns.joined(separator: ", ")) FROM room_scans"
        }
        return try DatabaseQueue(path: path).read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: sql).map { row in
                (row[0] as String, row.databaseValues.dropFirst().map(Self.derivedValue))
            })
        }
    }

    /// A value read with plain SQL, as a derived value.
    static func derivedValue(_ value: DatabaseValue) -> DerivedValue {
        switch value.storage {
        case .null: .null
        case .int64(let number): .integer(number)
        case .double(let number): .real(number)
        case .string(let text): .text(text)
        case .blob(let data): .blob([UInt8](data))
        }
    }

    @Test("an app's scans get their values where it reads them, and a scan that fails keeps unknown facts",
          arguments: [Pipeline.Layout.companion(table: "room_scans_derived"), .inline])
    func derivedValuesLandWhereTheAppReadsThem(layout: Pipeline.Layout) async throws {
        let name = Fixtures.exportNames[0]
        let directory = FileManager.default.temporaryDirectory.appending(path: "roomscan-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appending(path: "rooms.sqlite").path

        let pipeline = RoomScan.pipeline(layout: layout)
        let store = try SQLiteStore(path: path)
        try await store.prepare(pipeline)
        // The app writes only a key and a payload.
        try await DatabaseQueue(path: path).write { db in
            for (key, json) in [("real", try Fixtures.export(name)), ("empty", Array(#"{"walls":[],"objects":[]}"#.utf8)), ("broken", Array("[]".utf8))] {
                try db.execute(
                    sql: "INSERT INTO room_scans (scan_id, payload) VALUES (?, ?)",
                    arguments: [key, Data(PayloadCodec.encode(json))]
                )
            }
        }
        let summary = try await Runner(store: store, pipelines: [pipeline]).run()
        #expect(summary.counts == RunCounts(changed: 2, failed: 1))

        let stored = try Self.storedValues(path, layout: layout)
        let columns = RoomScan.pipeline.outputColumns
        let expected = try #require(try Fixtures.expected().fixtures[name])
        expectColumns(stored["real"] ?? [], of: columns, equal: expected, name)
        // An empty scan has zero walls (and, by the rules, an area small enough for a closet); a scan
        // that never derived has unknown facts, not zeros.
        #expect(stored["empty"] == [
            .real(0), .integer(0), .integer(0), .integer(0), .integer(0), .integer(0),
            .real(0), .real(0), .text("{}"), .text("[]"), .text("closet"),
        ])
        switch layout {
        case .companion: #expect(stored["broken"] == nil)
        case .inline: #expect(stored["broken"] == Array(repeating: .null, count: columns.count))
        }
    }

    @Test("an export whose arrays are empty derives zeros and empty JSON")
    func emptyArraysDeriveZeros() {
        let values = deriveAll(RoomScan.pipeline, Array(#"{"walls":[],"doors":null,"objects":[]}"#.utf8))
        #expect(values == [
            .real(0), .integer(0), .integer(0), .integer(0), .integer(0), .integer(0),
            .real(0), .real(0), .text("{}"), .text("[]"), .text("closet"),
        ])
    }

    @Test("an object with none of a room's arrays, such as {}, fails every processor as a decoding failure")
    func anObjectWithNoRoomFails() {
        for json in ["{}", "  { }", #"{"identifier":"x","version":2}"#] {
            let outcomes = RoomScan.pipeline.evaluate(json: Array(json.utf8), selection: RoomScan.payloadProcessors)
            #expect(outcomes.count == RoomScan.payloadProcessors.count)
            for outcome in outcomes {
                guard case .failed(.decoding, let message) = outcome else {
                    Issue.record("\(json): expected a decoding failure, got \(outcome)")
                    continue
                }
                #expect(message.contains("not a RoomPlan room") && message.contains("\"walls\""), "\(message)")
            }
        }
    }

    @Test("a payload that does not decode fails every selected processor as a decoding failure")
    func undecodablePayloadFailsEveryProcessor() {
        let outcomes = RoomScan.pipeline.evaluate(json: Array("[]".utf8), selection: [0, 2, 4])
        #expect(outcomes.count == 3)
        for outcome in outcomes {
            guard case .failed(.decoding, let message) = outcome else {
                Issue.record("expected a decoding failure, got \(outcome)")
                continue
            }
            #expect(!message.isEmpty && !message.contains("\n"))
        }
    }
}
