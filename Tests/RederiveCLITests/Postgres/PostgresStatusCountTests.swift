#if PostgreSQL
import Foundation
import Rederive
import RederivePostgres
import RederivePostgresTestSupport
import RederiveStoreTesting
import RederiveTestSupport
import RoomScan
import Testing

/// `status` on PostgreSQL reads counts kept as rederive's tables are written: after every kind of
/// change, and while workers derive and other programs write, they equal a recount of every row.
@Suite("status counts on PostgreSQL", .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .serialized, .timeLimit(.minutes(5)))
struct PostgresStatusCountTests {
    /// Expects the kept counts to equal a recount of every row, read in one snapshot; returns them.
    @discardableResult
    static func expectExact(
        _ store: PostgresStore, _ pipeline: Pipeline, after step: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [ProcessorStatus] {
        let (kept, recounted) = try await store.statusCheck(of: pipeline)
        #expect(kept == recounted, "after \(step): kept \(summary(kept)), recounted \(summary(recounted))", sourceLocation: sourceLocation)
        try await expectExactProjections(store, pipeline, after: step, sourceLocation: sourceLocation)
        return kept
    }

    /// Expects the kept count of current projections to equal a join of every projection to its
    /// record, read in one snapshot; returns it.
    @discardableResult
    static func expectExactProjections(
        _ store: PostgresStore, _ pipeline: Pipeline, after step: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Int {
        let (kept, recounted) = try await store.projectionCountCheck(of: pipeline)
        #expect(kept == recounted, "after \(step): \(kept) projections kept, \(recounted) recounted", sourceLocation: sourceLocation)
        return kept
    }

    /// `name@version records/upToDate/failed`, per processor.
    static func summary(_ statuses: [ProcessorStatus]) -> String {
        statuses.map { "\($0.name)@\($0.version) \($0.records)/\($0.upToDate)/\($0.failed)" }.joined(separator: ", ")
    }

    /// Plans `p0` … of sizes that make some large, some small; `rejected` among their labels.
    static func plans(_ count: Int) -> [(key: String, payload: [UInt8])] {
        (0..<count).map { index in
            let label = ["hall", "den", "barn"][index % 3]
            return ("p\(index)", Array(#"{"label": "\#(label)", "width": \#(index % 7 + 1), "depth": 4}"#.utf8))
        }
    }

    static func run(_ pipeline: Pipeline, _ store: PostgresStore) async throws -> RunSummary {
        var configuration = Runner.Configuration(parallelism: 2, batchSize: 3)
        configuration.claimSize = 3
        return try await Runner(store: store, pipelines: [pipeline], configuration: configuration).run()
    }

    @Test func countsFollowEveryKindOfChange() async throws {
        var floor = FloorPipeline(rejectedLabel: "den")
        let url = try PostgresServer.shared().makeDatabase()
        let database = PostgresServer.databaseName(in: url)
        let psql = { (sql: String) in _ = try PostgresServer.shared().psql(database, sql) }
        let store = try await PostgresStore(url: url)
        defer { store.close() }
        try await store.prepare(floor.pipeline)
        _ = try await store.importPayloads(Self.plans(30), into: floor.pipeline)
        try await Self.expectExact(store, floor.pipeline, after: "an import")

        let first = try await Self.run(floor.pipeline, store)
        #expect(first.counts.failed > 0)
        let derived = try await Self.expectExact(store, floor.pipeline, after: "a first run with failures")
        #expect(derived.map(\.upToDate) == [30, 20, 20] && derived.map(\.failed) == [0, 10, 10], "\(Self.summary(derived))")
        try await store.foldCounts()
        try await Self.expectExact(store, floor.pipeline, after: "a fold")

        _ = try await store.invalidate(floor.pipeline, processors: ["area"], keys: nil)
        try await Self.expectExact(store, floor.pipeline, after: "invalidating a processor")
        _ = try await store.invalidate(floor.pipeline, processors: nil, keys: ["p0", "p1"])
        try await Self.expectExact(store, floor.pipeline, after: "invalidating records")
        _ = try await Self.run(floor.pipeline, store)
        try await Self.expectExact(store, floor.pipeline, after: "re-deriving what was invalidated")

        // Another program replaces a payload, deletes a record and writes a new one.
        try psql(#"UPDATE plans SET payload = '{"label": "barn", "width": 9, "depth": 9}' WHERE key = 'p3'"#)
        try await Self.expectExact(store, floor.pipeline, after: "a payload replaced by another program")
        try psql("DELETE FROM plans WHERE key IN ('p4', 'p5')")
        try await Self.expectExact(store, floor.pipeline, after: "records deleted by another program")
        try psql(#"INSERT INTO plans (key, payload) VALUES ('extra', '{"label": "hall", "width": 1, "depth": 1}')"#)
        try await Self.expectExact(store, floor.pipeline, after: "a record written by another program")
        _ = try await Self.run(floor.pipeline, store)
        try await Self.expectExact(store, floor.pipeline, after: "deriving what other programs wrote")

        // A new version of a payload processor, then of the dependent one, and a fix of the failing one.
        floor.areaVersion = 2
        let bumped = try await Self.expectExact(store, floor.pipeline, after: "a version bump")
        #expect(bumped[0].upToDate == 0 && bumped[2].upToDate > 0, "\(Self.summary(bumped))")
        _ = try await Self.run(floor.pipeline, store)
        try await Self.expectExact(store, floor.pipeline, after: "a run of a bumped payload processor and its dependent")
        floor.kindVersion = 2
        _ = try await Self.run(floor.pipeline, store)
        try await Self.expectExact(store, floor.pipeline, after: "a run of a bumped dependent processor")
        floor.rejectedLabel = nil
        floor.labelVersion = 2
        let fixed = try await Self.run(floor.pipeline, store)
        let afterFix = try await Self.expectExact(store, floor.pipeline, after: "a run that fixes the failures")
        #expect(afterFix.allSatisfy { $0.failed == 0 && $0.upToDate == $0.records }, "\(Self.summary(afterFix))")

        let rollback = try await store.rollback(run: fixed.runID, pipelines: [floor.pipeline])
        #expect(!rollback.restored.isEmpty)
        floor.rejectedLabel = "den"
        floor.labelVersion = 1
        try await Self.expectExact(store, floor.pipeline, after: "a rollback")

        _ = try await store.reset(floor.pipeline)
        let reset = try await Self.expectExact(store, floor.pipeline, after: "a reset")
        #expect(reset.allSatisfy { $0.upToDate == 0 && $0.failed == 0 && $0.records == 29 }, "\(Self.summary(reset))")
        _ = try await Self.run(floor.pipeline, store)
        try await store.foldCounts()
        try await Self.expectExact(store, floor.pipeline, after: "a run after the reset, folded")

        try psql("TRUNCATE rederive_failures")
        try await Self.expectExact(store, floor.pipeline, after: "emptying the failures table")
    }

    @Test func theProjectionCountFollowsEveryKindOfChange() async throws {
        var conformance = ConformancePipeline(projectionVersion: 1)
        let url = try PostgresServer.shared().makeDatabase()
        let database = PostgresServer.databaseName(in: url)
        let psql = { (sql: String) in _ = try PostgresServer.shared().psql(database, sql) }
        let store = try await PostgresStore(url: url)
        defer { store.close() }
        let items = (0..<10).map { (key: "k\($0)", payload: ConformancePipeline.item("s\($0)", [Double($0), 1])) }
        try await store.prepare(conformance.pipeline)
        _ = try await store.importPayloads(items, into: conformance.pipeline)
        #expect(try await Self.expectExactProjections(store, conformance.pipeline, after: "an import") == 0)

        _ = try await Self.run(conformance.pipeline, store)
        #expect(try await Self.expectExactProjections(store, conformance.pipeline, after: "a run writing projections") == 10)
        #expect(try await store.currentProjectionCount(conformance.pipeline) == 10)
        try await store.foldCounts()
        try await Self.expectExactProjections(store, conformance.pipeline, after: "a fold")

        try psql(#"UPDATE items SET payload = '{"label": "x", "values": [5]}' WHERE key = 'k3'"#)
        #expect(try await Self.expectExactProjections(store, conformance.pipeline, after: "a payload replaced by psql") == 9)
        _ = try await Self.run(conformance.pipeline, store)
        #expect(try await Self.expectExactProjections(store, conformance.pipeline, after: "a run deriving the replaced payload") == 10)

        let previous = conformance.pipeline
        conformance.projectionVersion = 2
        #expect(try await Self.expectExactProjections(store, conformance.pipeline, after: "a projection version bump") == 0)
        conformance.totalVersion = 2
        _ = try await Self.run(conformance.pipeline, store)
        #expect(try await Self.expectExactProjections(store, conformance.pipeline, after: "a run at the new version") == 10)
        #expect(try await Self.expectExactProjections(store, previous, after: "a run at the new version") == 0)

        #expect(try await store.dropProjections(conformance.pipeline) == 10)
        #expect(try await Self.expectExactProjections(store, conformance.pipeline, after: "projections --drop") == 0)
        _ = try await store.reset(conformance.pipeline)
        _ = try await Self.run(conformance.pipeline, store)
        #expect(try await Self.expectExactProjections(store, conformance.pipeline, after: "a run after the drop") == 10)
        _ = try await store.reset(conformance.pipeline)
        #expect(try await Self.expectExactProjections(store, conformance.pipeline, after: "a reset") == 0)

        _ = try await Self.run(conformance.pipeline, store)
        try await store.foldCounts()
        try psql("DELETE FROM items WHERE key IN ('k1', 'k2')")
        #expect(try await Self.expectExactProjections(store, conformance.pipeline, after: "records deleted by psql") == 8)
        try psql(#"INSERT INTO items (key, payload) VALUES ('k1', '{"label": "again", "values": [1]}')"#)
        #expect(try await Self.expectExactProjections(store, conformance.pipeline, after: "a deleted key inserted again") == 8)
        try psql("TRUNCATE rederive_projections")
        #expect(try await Self.expectExactProjections(store, conformance.pipeline, after: "emptying the projections table") == 0)
    }

    /// A new database holding `plans(12)`, derived once by `floor`, its store closed: its URL and name.
    static func derivedDatabase(_ floor: FloorPipeline) async throws -> (url: String, database: String) {
        let url = try PostgresServer.shared().makeDatabase()
        let store = try await PostgresStore(url: url)
        defer { store.close() }
        try await store.prepare(floor.pipeline)
        _ = try await store.importPayloads(plans(12), into: floor.pipeline)
        _ = try await run(floor.pipeline, store)
        return (url, PostgresServer.databaseName(in: url))
    }

    @Test func aDatabaseOfThePreviousVersionIsCountedOnceWhenUpgraded() async throws {
        let floor = FloorPipeline(rejectedLabel: "den")
        let (url, database) = try await Self.derivedDatabase(floor)
        // What version 6 had: no counts, and no triggers keeping them.
        _ = try PostgresServer.shared().psql(database, """
            DROP TABLE rederive_counts, rederive_count_deltas;
            DROP FUNCTION rederive_fold_counts, rederive_count_truncated CASCADE;
            DROP FUNCTION rederive_count_records_insert, rederive_count_records_delete, rederive_count_stamps_insert,
                rederive_count_stamps_update, rederive_count_stamps_delete, rederive_count_failures_insert,
                rederive_count_failures_update, rederive_count_failures_delete CASCADE;
            DROP FUNCTION rederive_count_projections_insert, rederive_count_projections_update, rederive_count_projections_delete,
                rederive_count_record_projections_insert, rederive_count_record_projections_update,
                rederive_count_record_projections_delete CASCADE;
            DROP TABLE rederive_projections;
            UPDATE rederive_bookkeeping SET version = 6;
            """)
        let store = try await PostgresStore(url: url)
        defer { store.close() }
        let upgraded = try await Self.expectExact(store, floor.pipeline, after: "an upgrade")
        #expect(upgraded.map(\.upToDate) == [12, 8, 8] && upgraded.map(\.failed) == [0, 4, 4], "\(Self.summary(upgraded))")
        _ = try await store.invalidate(floor.pipeline, processors: nil, keys: ["p0"])
        try await Self.expectExact(store, floor.pipeline, after: "invalidating a record of the upgraded database")
    }

    /// The check can fail: a write the counts miss shows as a difference.
    @Test func aWriteThatIsNotCountedShowsInTheCheck() async throws {
        let floor = FloorPipeline(rejectedLabel: "den")
        let url = try PostgresServer.shared().makeDatabase()
        let store = try await PostgresStore(url: url)
        defer { store.close() }
        try await store.prepare(floor.pipeline)
        _ = try await store.importPayloads(Self.plans(6), into: floor.pipeline)
        _ = try await Self.run(floor.pipeline, store)
        _ = try PostgresServer.shared().psql(
            PostgresServer.databaseName(in: url), "ALTER TABLE rederive_stamps DISABLE TRIGGER rederive_count_stamps_update"
        )
        _ = try await store.invalidate(floor.pipeline, processors: ["area"], keys: nil)
        let (kept, recounted) = try await store.statusCheck(of: floor.pipeline)
        #expect(kept[0].upToDate == 6 && recounted[0].upToDate == 0)
    }

    /// The projection check can fail too: a renewed generation the count misses shows as a difference.
    @Test func aProjectionWriteThatIsNotCountedShowsInTheCheck() async throws {
        let conformance = ConformancePipeline(projectionVersion: 1)
        let url = try PostgresServer.shared().makeDatabase()
        let store = try await PostgresStore(url: url)
        defer { store.close() }
        try await store.prepare(conformance.pipeline)
        _ = try await store.importPayloads([(key: "k0", payload: ConformancePipeline.item("a", [1]))], into: conformance.pipeline)
        _ = try await Self.run(conformance.pipeline, store)
        _ = try PostgresServer.shared().psql(PostgresServer.databaseName(in: url), """
            ALTER TABLE rederive_records DISABLE TRIGGER rederive_count_record_projections_update;
            UPDATE items SET payload = '{"label": "b", "values": [2]}'
            """)
        let (kept, recounted) = try await store.projectionCountCheck(of: conformance.pipeline)
        #expect(kept == 1 && recounted == 0)
    }

    /// Two worker processes share a run while another client swaps payloads, deletes and writes
    /// records and invalidates; every snapshot read meanwhile, and the end, count exactly.
    @Test func countsStayExactWhileWorkersDeriveAndOthersWrite() async throws {
        let pipeline = RoomScan.pipeline
        try await TestStore.postgres.withHarness { harness in
            let url = try #require(harness.serverDatabase)
            _ = try await harness.rederive("generate", "--count", "400", "--seed", "7", "--corrupt", "0.1")
            let store = try await PostgresStore(url: url)
            defer { store.close() }
            try await Self.expectExact(store, pipeline, after: "generating")
            let workers = try (0..<2).map { _ in
                try RederiveProcess.start(
                    ["run", "--db", url, "--parallel", "1", "--batch-size", "5", "--max-rate", "100", "--progress", "none"],
                    in: harness.directory
                )
            }
            var round = 0
            while !workers.allSatisfy(\.hasEnded) {
                round += 1
                switch round % 4 {
                case 0:
                    // Two records swap payloads, as an app rewriting them would.
                    try await harness.execute("""
                        UPDATE room_scans t SET payload = o.payload FROM room_scans o
                        WHERE (t.id, o.id) IN ((\(round % 50 + 1), \(round % 50 + 60)), (\(round % 50 + 60), \(round % 50 + 1)))
                        """)
                case 1:
                    _ = try await harness.rederive("invalidate", "--processor", "wall_metrics")
                case 2:
                    try await harness.execute("""
                        INSERT INTO room_scans (scan_id, payload) SELECT 'copy-\(round)', payload FROM room_scans WHERE id = \(round % 100 + 1);
                        DELETE FROM room_scans WHERE id = \(round % 100 + 150)
                        """)
                default:
                    _ = try await harness.rederive("invalidate", "--processor", "room_type")
                }
                try await Self.expectExact(store, pipeline, after: "round \(round) while workers derive")
                try await Task.sleep(for: .milliseconds(200))
            }
            for worker in workers {
                let outcome = try await worker.wait()
                #expect(outcome.status == 0 || outcome.status == 3, "\(outcome.errors)")
            }
            #expect(round >= 4, "the workers ended before the other client wrote")
            try await Self.expectExact(store, pipeline, after: "the workers ended")
            try await store.foldCounts()
            let end = try await Self.expectExact(store, pipeline, after: "a fold")
            let status = try await harness.rederive("status", "--format", "json")
            let shown = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])
            #expect(shown["records"] as? Int == end.first?.records)
            let processors = try #require(shown["processors"] as? [[String: Any]])
            #expect(processors.map { $0["upToDate"] as? Int ?? -1 } == end.map(\.upToDate))
            #expect(processors.map { $0["failed"] as? Int ?? -1 } == end.map(\.failed))
        }
    }
}
#endif
