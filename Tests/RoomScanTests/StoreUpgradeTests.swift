import Foundation
import GRDB
import Rederive
import RederiveSQLite
import RoomScan
import Testing

/// A database written by an earlier release opens with its state intact: what was up to date stays up
/// to date, failures stay listed, history can still be rolled back, and payload changes are still noticed.
@Suite("Store upgrade")
struct StoreUpgradeTests {
    /// A private copy of a database from `Fixtures/databases`.
    func copyOfFixture(_ name: String, in directory: URL) throws -> String {
        let source = Fixtures.directory.appending(path: "databases").appending(path: name)
        let copy = directory.appending(path: name)
        try FileManager.default.copyItem(at: source, to: copy)
        return copy.path
    }

    @Test func aVersion3DatabaseKeepsItsStampsFailuresAndHistory() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "rederive-upgrade-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try copyOfFixture("rederive-v3.sqlite", in: directory)
        let pipeline = RoomScan.pipeline

        let store = try SQLiteStore(path: path)
        try await store.prepare(pipeline)
        // The five processors of that release keep their state; room_type, added since, is stale everywhere.
        let status = try await store.status(of: pipeline)
        #expect(status.count == 6)
        for processor in status where processor.name != "room_type" {
            #expect(processor.upToDate == 5, "\(processor.name)")
            #expect(processor.failed == 1, "\(processor.name)")
        }
        #expect(status.last.map { [$0.name, "\($0.upToDate)", "\($0.stale)"] } == ["room_type", "0", "6"])
        let failures = try await store.failures(of: pipeline, filter: FailureFilter())
        #expect(Set(failures.map(\.key)) == ["synthetic-11-0000001"])
        #expect(failures.count == 5)

        // Only room_type derives, from the stored values: the stamps were kept and given to the pipeline.
        // The record whose inputs failed gets an upstream failure instead.
        let run = try await Runner(store: store, pipelines: [pipeline]).run()
        #expect(run.pending == 6)
        #expect(run.counts == RunCounts(changed: 5, failed: 1))
        #expect(try await store.status(of: pipeline).allSatisfy { $0.upToDate == 5 && $0.failed == 1 })
        let unowned = try await DatabaseQueue(path: path).read { db in
            try Int.fetchOne(db, sql: """
                SELECT (SELECT count(*) FROM rederive_stamps WHERE pipeline <> 'roomscan')
                     + (SELECT count(*) FROM rederive_failures WHERE pipeline <> 'roomscan')
                     + (SELECT count(*) FROM rederive_replaced_values WHERE pipeline <> 'roomscan')
                """)
        }
        #expect(unowned == 0)

        // The first run's history survived: rolling it back restores the defaults and makes the records
        // stale, room_type too, since its inputs' values were replaced.
        let rollback = try await store.rollback(run: 1, pipelines: [pipeline])
        #expect(rollback.restored.count == 25)
        #expect(rollback.skipped.isEmpty)
        #expect(try await store.status(of: pipeline).allSatisfy { $0.upToDate == 0 })

        // The triggers survived the table rebuild: a replaced payload makes its record stale again.
        _ = try await Runner(store: store, pipelines: [pipeline]).run()
        let app = try DatabaseQueue(path: path)
        try await app.write { db in
            try db.execute(sql: "UPDATE room_scans SET payload = payload || x'00' WHERE scan_id = 'synthetic-11-0000003'")
        }
        // The replaced record is stale; the record whose payload failed stays failed, not stale.
        #expect(try await store.status(of: pipeline).allSatisfy { $0.stale + $0.failed == 2 && $0.stale >= 1 })
    }
}
