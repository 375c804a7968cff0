#if PostgreSQL
import Rederive
import RederivePostgres
import RederivePostgresTestSupport
import Testing

/// Migrations on a PostgreSQL store, called as an app calls them.
@Suite("schema migrations on PostgreSQL", .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .timeLimit(.minutes(5)))
struct PostgresMigrationTests {
    struct Room: Decodable, Sendable {
        let width: Double
        let depth: Double
    }

    /// A pipeline over `table` with one processor, `area`, whatever the pipeline's name.
    static func measuring(_ name: String) -> Pipeline {
        let area = Processor<Room>.real("area", version: 1) { room in room.width * room.depth }
        return Pipeline(name: name, table: name, keyColumn: "key", decoding: Room.self, processors: [area])
    }

    @Test func aMigrationInvalidatesOnlyThePipelineItNames() async throws {
        let plans = Self.measuring("plans")
        let copies = Self.measuring("copies")
        let store = try await PostgresStore(url: try PostgresServer.shared().makeDatabase())
        defer { store.close() }
        let rooms: [(key: String, payload: [UInt8])] = [
            ("hall", Array(#"{"width": 3, "depth": 4}"#.utf8)),
            ("den", Array(#"{"width": 2, "depth": 3}"#.utf8)),
        ]
        for pipeline in [plans, copies] {
            try await store.prepare(pipeline)
            _ = try await store.importPayloads(rooms, into: pipeline)
            #expect(try await Runner(store: store, pipelines: [pipeline]).run().counts == RunCounts(changed: 2))
        }
        let migrator = try SchemaMigrator([
            .sql("rescale-plans", "UPDATE plans_derived SET area = area * 10", invalidates: [.processor("area", of: plans)]),
        ])
        #expect(try await store.migrate(migrator).applied == ["rescale-plans"])
        #expect(try await store.status(of: plans).map(\.stale) == [2])
        #expect(try await store.status(of: copies).map(\.stale) == [0])
        #expect(try await store.migrationStates(migrator).map(\.isApplied) == [true])
    }

    /// A store prepares a pipeline once per process, unless a migration may have changed its tables.
    @Test func aPipelinePreparedBeforeAMigrationIsPreparedAgainAfterIt() async throws {
        let rebuilt = Self.measuring("rebuilt")
        let store = try await PostgresStore(url: try PostgresServer.shared().makeDatabase())
        defer { store.close() }
        try await store.prepare(rebuilt)
        _ = try await store.importPayloads([("hall", Array(#"{"width": 3, "depth": 4}"#.utf8))], into: rebuilt)
        let migrator = try SchemaMigrator([.sql("drop-area", "ALTER TABLE rebuilt_derived DROP COLUMN area")])
        #expect(try await store.migrate(migrator).applied == ["drop-area"])
        // The run prepares the pipeline again, which adds the column back.
        #expect(try await Runner(store: store, pipelines: [rebuilt]).run().counts == RunCounts(changed: 1))
        let ids = try await store.sampleRecordIDs(of: rebuilt, count: 1)
        #expect(try await store.storedRows(of: rebuilt, recordIDs: ids).values.map(\.values) == [[.real(12)]])
    }
}
#endif
