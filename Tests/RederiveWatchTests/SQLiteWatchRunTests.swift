import GRDB
import Rederive
import RederiveSQLite
import RederiveTestSupport
import Testing

/// A watcher's run on SQLite is recorded without the store's own count of pending records, which
/// probes every record when several processors are behind.
@Suite("SQLite: a watcher's run")
struct SQLiteWatchRunTests {
    @Test func aWatchRunTakesTheWatchersCountAndIsRecordedAsAnyRun() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(30), into: path)
            let store = try SQLiteStore(path: path)
            guard case .acquired(let lease) = try await store.acquireLease(for: .current, duration: .seconds(600)) else {
                Issue.record("the lease was not free")
                return
            }
            // The watcher found 12 so far (a fresh lane's first claim, say): the run says so, uncounted.
            let started = try await store.startWatchRun([RunPlan(pipeline: test.pipeline)], lease: lease, pending: [12])
            #expect(started.pending == [12])
            let inspection = Inspection(path: path)
            #expect(try inspection.count("SELECT count(*) FROM rederive_runs WHERE id = ? AND status = 'running'", [started.id]) == 1)
            #expect(try inspection.count("SELECT count(*) FROM rederive_leases WHERE run_id = ?", [started.id]) == 1)
            try await store.finishRun(started.id, status: .completed, counts: RunCounts(), lease: lease)
            #expect(try await store.runs(limit: 1).first?.status == .completed)
        }
    }
}
