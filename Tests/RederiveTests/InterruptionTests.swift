import GRDB
import Rederive
import RederiveSQLite
import RederiveTestSupport
import Synchronization
import Testing

/// Cancels a task when the first batch has been committed.
final class CancelAfterFirstCommit: ProgressReporter {
    let task = Mutex<Task<RunSummary, any Error>?>(nil)

    func report(_ event: ProgressEvent) {
        if case .advanced = event {
            task.withLock { $0?.cancel() }
        }
    }
}

/// Runs `pipeline` on `store` with 2 workers and batches of 10, cancelled once its first batch is
/// committed, as Ctrl-C would.
func runCancelledAfterFirstCommit(_ pipeline: Pipeline, on store: SQLiteStore) async throws -> RunSummary {
    let canceller = CancelAfterFirstCommit()
    let runner = Runner(
        store: store, pipelines: [pipeline],
        configuration: Runner.Configuration(parallelism: 2, batchSize: 10), progress: canceller
    )
    let task = Task { try await runner.run() }
    canceller.task.withLock { $0 = task }
    return try await task.value
}

@Suite("Interruption and resume", .timeLimit(.minutes(5)))
struct InterruptionTests {
    @Test func aCancelledRunResumesWithNothingLostOrRepeated() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(400), into: path)
            let store = try SQLiteStore(path: path)
            let first = try await runCancelledAfterFirstCommit(test.pipeline, on: store)
            #expect(first.status == .interrupted)
            #expect(first.counts.total < 400)
            #expect(first.counts.total > 0)
            let history = try await store.runs(limit: 1)
            #expect(history.first?.status == .interrupted)

            let second = try await run(test.pipeline, at: path)
            #expect(second.status == .completed)
            #expect(first.counts.total + second.counts.total == 400)
            // Every record derived exactly once by each processor.
            #expect(test.log.all.count == 800)
            #expect(test.log.all.values.allSatisfy { $0 == 1 })
            #expect(try Inspection(path: path).count("SELECT count(*) FROM rederive_stamps WHERE current = 1") == 800)
        }
    }

    @Test func aRunAbandonedMidwayIsResumedByTheNextRun() async throws {
        try await withTemporaryDatabase { path in
            // The same state a killed process leaves: some batches committed, the run still "running".
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(50), into: path)
            _ = try await run(test.pipeline, at: path, Runner.Configuration(parallelism: 2, batchSize: 10, limit: 20))
            try appExecute(path, "UPDATE rederive_runs SET status = 'running', ended_at = NULL, derived = 0")
            let summary = try await run(test.pipeline, at: path)
            #expect(summary.pending == 30)
            #expect(test.log.all.values.allSatisfy { $0 == 1 })
            // The next run found the abandoned one and recorded it as interrupted, with what it committed.
            let abandoned = try #require(try await SQLiteStore(path: path).runs(limit: nil).last)
            #expect(abandoned.status == .interrupted)
            #expect(abandoned.counts == RunCounts(changed: 20))
            #expect(abandoned.endedAt != nil)
        }
    }

    @Test func anAbandonedRunIsCountedFromWhatItCommitted() async throws {
        try await withTemporaryDatabase { path in
            var test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(30) + [("bad", sampleJSON("explode", [1]))], into: path)
            _ = try await run(test.pipeline, at: path)
            // A new version of `total` derives the same values: its records are unchanged, but for the
            // one whose value is replaced below and the one that fails again.
            test.totalVersion = 2
            try appExecute(path, "UPDATE items_derived SET total = -1 WHERE id = (SELECT id FROM items WHERE key = 'k4')")
            let second = try await run(test.pipeline, at: path, Runner.Configuration(parallelism: 2, batchSize: 10, retryFailed: true))
            #expect(second.counts == RunCounts(changed: 1, unchanged: 29, failed: 1))
            // The state a process killed after its last commit leaves.
            try appExecute(path, "UPDATE rederive_runs SET status = 'running', ended_at = NULL, derived = 0, unchanged = 0, failed = 0 WHERE id = 2")
            _ = try await run(test.pipeline, at: path)
            let runs = try await SQLiteStore(path: path).runs(limit: nil)
            let abandoned = try #require(runs.first { $0.id == 2 })
            #expect(abandoned.status == .interrupted)
            #expect(abandoned.counts == second.counts)
        }
    }
}
