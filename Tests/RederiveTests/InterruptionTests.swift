import Foundation
import GRDB
import Rederive
import RederiveSQLite
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
            try appExecute(path, "UPDATE rederive_runs SET status = 'running', ended_at = NULL")
            let summary = try await run(test.pipeline, at: path)
            #expect(summary.pending == 30)
            #expect(test.log.all.values.allSatisfy { $0 == 1 })
        }
    }
}
