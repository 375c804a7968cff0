#if PostgreSQL
import Rederive
import RederiveCodec
import RederivePostgres
import RederivePostgresTestSupport
import RederiveTestSupport
import RoomScan
import Synchronization
import Testing

/// An import on PostgreSQL goes to the server a statement at a time, all in one transaction: many
/// statements add up to one import, and a failure after some of them leaves nothing behind.
@Suite("streamed import on PostgreSQL", .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .timeLimit(.minutes(2)))
struct PostgresImportStreamTests {
    struct StreamBroke: Error {}

    /// The thirteen exports as items keyed by file name, compressed at `level`.
    static func exports(level: Int32 = 6) throws -> [ImportItem] {
        try RealExports.names.map { name in
            let json = try RealExports.bytes(name)
            return ImportItem(key: name, payload: PayloadCompressor(level: level).zlib(json), content: json)
        }
    }

    /// A `next` that hands out `items`, then throws instead of handing out the one at `failing`.
    static func stream(_ items: [ImportItem], failingAt failing: Int? = nil) -> @Sendable () throws -> ImportItem? {
        let position = Mutex(0)
        return {
            try position.withLock { index in
                if index == failing { throw StreamBroke() }
                defer { index += 1 }
                return index < items.count ? items[index] : nil
            }
        }
    }

    /// Each stored payload by key, read with `psql`.
    static func payloads(in database: String) throws -> [String: [UInt8]] {
        let lines = try PostgresServer.shared().psql(database, "SELECT scan_id, encode(payload, 'hex') FROM room_scans")
        var payloads: [String: [UInt8]] = [:]
        for line in lines.split(separator: "\n") {
            let fields = line.split(separator: "|", maxSplits: 1)
            let hex = Array(fields[1].utf8)
            payloads[String(fields[0])] = stride(from: 0, to: hex.count, by: 2).map { UInt8(String(decoding: hex[$0...$0 + 1], as: UTF8.self), radix: 16)! }
        }
        return payloads
    }

    static func counts(_ outcome: ImportCounts) -> [Int] {
        [outcome.inserted, outcome.replaced, outcome.unchanged]
    }

    @Test func statementsOfAFewPayloadsAddUpToOneImportAndAFailureAfterSomeOfThemStoresNothing() async throws {
        let url = try PostgresServer.shared().makeDatabase()
        let database = PostgresServer.databaseName(in: url)
        let store = try await PostgresStore(url: url)
        defer { store.close() }
        try await store.prepare(RoomScan.pipeline)
        let items = try Self.exports()

        let first = try await store.importPayloads(into: RoomScan.pipeline, statementItems: 3, from: Self.stream(items))
        #expect(Self.counts(first) == [13, 0, 0])
        let stored = try Self.payloads(in: database)
        #expect(stored == Dictionary(uniqueKeysWithValues: items.map { ($0.key, $0.payload) }))

        // Changed payloads, then the stream breaks after three statements of three went to the server.
        let changed = items.map { ImportItem(key: $0.key, payload: PayloadCodec.encode(Array(#"{"walls": []}"#.utf8))) }
        await #expect(throws: StreamBroke.self) {
            try await store.importPayloads(into: RoomScan.pipeline, statementItems: 3, from: Self.stream(changed, failingAt: 10))
        }
        #expect(try Self.payloads(in: database) == stored)

        // Byte limits split statements too; compressed otherwise, the same JSON is left as it was.
        let again = try await store.importPayloads(into: RoomScan.pipeline, statementBytes: 1, from: Self.stream(try Self.exports(level: 1)))
        #expect(Self.counts(again) == [0, 0, 13])
        #expect(try Self.payloads(in: database) == stored)
    }
}
#endif
