import Foundation
import GRDB
import Rederive
import RederiveCodec
import RederiveSQLite
import RederiveTestSupport
import RoomScan
import Testing

/// Each hostile payload stored through the store between two real exports and run by the real
/// runner with the RoomScan pipeline: the hostile record fails for every processor with the expected
/// kind and a one-line message, and the exports beside it derive.
///
/// RoomScan requires nothing at the top level (absent or `null` arrays count 0), but each element it
/// reads must be complete: a wall needs `dimensions` and `transform`, an object a `category`, a
/// section a `label`.
@Suite("Hostile payloads in a real run", .timeLimit(.minutes(5)))
struct HostilePayloadRunTests {
    static let identity = "[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]"

    @Test func emptyBlob() async throws {
        try await expectFailure([], kind: .decompression, mentioning: ["empty"])
    }

    @Test func randomBytes() async throws {
        var random = SplitMix64(seed: 42)
        let bytes = (0..<4_096).map { _ in UInt8.random(in: 0...255, using: &random) }
        try await expectFailure(bytes, kind: .decompression, mentioning: ["deflate stream"])
    }

    @Test func truncatedStream() async throws {
        let stream = PayloadCodec.encode(try RealExports.bytes(RealExports.names[2]))
        try await expectFailure(Array(stream.prefix(stream.count / 2)), kind: .decompression, mentioning: ["truncated"])
    }

    @Test func badChecksum() async throws {
        var stream = PayloadCodec.encode(try RealExports.bytes(RealExports.names[2]))
        stream[stream.count - 1] ^= 0xFF
        try await expectFailure(stream, kind: .decompression, mentioning: ["check"])
    }

    @Test func invalidUTF8() async throws {
        let json = Array(#"{"sections":[{"label":"bath"#.utf8) + [0xFF, 0xFE] + Array(#""}]}"#.utf8)
        try await expectFailure(PayloadCodec.encode(json), kind: .decoding, mentioning: ["byte 0xFF is not UTF-8", "sections[0].label"])
    }

    @Test func invalidJSON() async throws {
        let json = #"{"doors": [], "walls": [{"dimensions": [4, 2.5, 0] "transform": []}]}"#
        try await expectFailure(PayloadCodec.encode(Array(json.utf8)), kind: .decoding, mentioning: ["walls[0]", "byte"])
    }

    @Test func jsonNestedOneHundredThousandLevelsDeep() async throws {
        // Under a key the decoder skips, so that the nesting is walked rather than refused by shape.
        let depth = 100_000
        let json = "{\"coreModel\":" + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + ",\"walls\":[]}"
        try await expectFailure(PayloadCodec.encode(Array(json.utf8)), kind: .decoding, mentioning: ["nesting deeper than", "coreModel"])
    }

    @Test func anArrayInsteadOfAnObject() async throws {
        try await expectFailure(PayloadCodec.encode(Array(#"[{"walls":[]}]"#.utf8)), kind: .decoding, mentioning: ["at top level"])
    }

    @Test func wrongTypes() async throws {
        try await expectFailure(PayloadCodec.encode(Array(#"{"walls":"four"}"#.utf8)), kind: .decoding, mentioning: ["walls"])
    }

    @Test func missingRequiredKeys() async throws {
        let json = #"{"walls":[{"transform":\#(Self.identity)}]}"#
        try await expectFailure(PayloadCodec.encode(Array(json.utf8)), kind: .decoding, mentioning: ["dimensions", "walls[0]"])
    }

    @Test func absentArraysCountZero() async throws {
        try await withStore { store in
            _ = try await store.importPayloads([("bare", PayloadCodec.encode(Array(#"{"walls":null}"#.utf8)))], into: RoomScan.pipeline)
            let summary = try await Runner(store: store, pipelines: [RoomScan.pipeline]).run()
            #expect(summary.counts == RunCounts(changed: 1))
            let counts = try await store.read { db in
                try Row.fetchOne(db, sql: """
                    SELECT d.wall_count, d.door_count, d.window_count, d.opening_count, d.object_count
                    FROM room_scans s JOIN room_scans_derived d ON d.id = s.id WHERE s.scan_id = 'bare'
                    """).map { Array($0.databaseValues) }
            }
            #expect(counts == Array(repeating: 0.databaseValue, count: 5))
        }
    }

    @Test func numbersOutOfRange() async throws {
        // Beyond a Double, and finite but beyond RoomScan's plausible range: both named with their path.
        let json = #"{"walls":[{"dimensions":[1e400,2.5,0],"transform":\#(Self.identity)}]}"#
        try await expectFailure(PayloadCodec.encode(Array(json.utf8)), kind: .decoding, mentioning: ["out of range", "walls[0].dimensions[0]"])
        let finite = #"{"walls":[{"dimensions":[4,2.5,0],"transform":[1,0,0,0,0,1,0,0,0,0,1,0,1e300,0,0,1]}]}"#
        try await expectFailure(PayloadCodec.encode(Array(finite.utf8)), kind: .decoding, mentioning: ["walls[0].transform", "out of range"])
    }

    @Test func decompressionBomb() async throws {
        // 256 MiB of zeros in a few hundred KiB; the default 64 MiB limit stops the inflate.
        let bomb = PayloadCodec.encode([UInt8](repeating: 0, count: 256 << 20), level: 9)
        #expect(bomb.count < 1 << 20)
        try await expectFailure(bomb, kind: .decompression, mentioning: ["exceeds the 64 MiB limit"])
    }

    @Test func aProcessorThatThrows() async throws {
        struct NoWalls: Error, CustomStringConvertible {
            var description: String { "a room needs at least one wall" }
        }
        let strict = Processor<CapturedRoom>(name: "strict_walls", version: 1, columns: [.integer("strict_wall_count")]) { room in
            guard room.wallCount > 0 else { throw NoWalls() }
            return [.integer(room.wallCount)]
        }
        let pipeline = Pipeline(
            name: "roomscan", table: "room_scans", keyColumn: "scan_id", payloadColumn: "payload",
            layout: .companion(table: "room_scans_derived"),
            decode: { json in try CapturedRoom(json: json) },
            processors: RoomScan.processors + [strict]
        )
        try await expectFailure(
            PayloadCodec.encode(Array(#"{"walls":[]}"#.utf8)), kind: .processor, mentioning: ["a room needs at least one wall"],
            pipeline: pipeline, failing: ["strict_walls"]
        )
    }

    // MARK: - Helpers

    func withStore(_ body: (SQLiteStore) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("rederive-hostile-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: directory.appendingPathComponent("hostile.sqlite").path)
        try await store.prepare(RoomScan.pipeline)
        try await body(store)
    }

    /// Stores `payload` as record "hostile" between two real exports, runs, and checks that only
    /// it failed, with `kind` and a one-line message containing each of `fragments`.
    func expectFailure(
        _ payload: [UInt8],
        kind: FailureKind,
        mentioning fragments: [String],
        pipeline: Pipeline = RoomScan.pipeline,
        failing processors: [String]? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        try await withStore { store in
            try await store.prepare(pipeline)
            let good = Array(RealExports.names.prefix(2))
            var payloads = [(key: String, payload: [UInt8])]()
            payloads.append((good[0], PayloadCodec.encode(try RealExports.bytes(good[0]))))
            payloads.append(("hostile", payload))
            payloads.append((good[1], PayloadCodec.encode(try RealExports.bytes(good[1]), as: .deflate)))
            _ = try await store.importPayloads(payloads, into: pipeline)

            let runner = Runner(store: store, pipelines: [pipeline], configuration: Runner.Configuration(parallelism: 3, batchSize: 2))
            let summary = try await runner.run()
            #expect(summary.status == .completed, sourceLocation: sourceLocation)
            #expect(summary.counts == RunCounts(changed: 2, failed: 1), sourceLocation: sourceLocation)

            let failures = try await store.failures(of: pipeline, filter: FailureFilter())
            let expected = processors ?? pipeline.processors.map(\.name)
            #expect(failures.map(\.processor) == expected, sourceLocation: sourceLocation)
            for failure in failures {
                #expect(failure.key == "hostile", sourceLocation: sourceLocation)
                #expect(!failure.message.isEmpty && !failure.message.contains("\n"), "\(failure.message)", sourceLocation: sourceLocation)
                #expect(failure.message.count <= 300, "\(failure.message)", sourceLocation: sourceLocation)
                // A processor that reads other processors' values fails because they did, naming one.
                let inputs = pipeline.inputs(of: failure.processor)
                if !inputs.isEmpty {
                    #expect(failure.kind == .upstream, "\(failure.message)", sourceLocation: sourceLocation)
                    #expect(inputs.contains { failure.message.contains("input processor \($0) failed") }, "\(failure.message)", sourceLocation: sourceLocation)
                    continue
                }
                #expect(failure.kind == kind, "\(failure.message)", sourceLocation: sourceLocation)
                for fragment in fragments {
                    #expect(failure.message.contains(fragment), "\(failure.message)", sourceLocation: sourceLocation)
                }
            }

            // The exports beside it hold exactly their independently computed wall counts.
            let expectedValues = try RealExports.expected()
            let walls = try await store.read { db in
                try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: """
                    SELECT s.scan_id, d.wall_count FROM room_scans s JOIN room_scans_derived d ON d.id = s.id
                    WHERE d.wall_count IS NOT NULL
                    """).map { ($0[0] as String, $0[1] as Int) })
            }
            // A processor that throws fails alone: the record's other processors derive.
            #expect(Set(walls.keys) == Set(good + (processors == nil ? [] : ["hostile"])), sourceLocation: sourceLocation)
            for name in good {
                #expect(walls[name] == expectedValues[name]?["wall_count"] as? Int, "\(name)", sourceLocation: sourceLocation)
            }
        }
    }
}

