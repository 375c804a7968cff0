import Foundation
import GRDB
import Rederive
import RederiveSQLite
import RederiveTestSupport
import Synchronization
import Testing

/// Another program's connection that holds SQLite's write lock for long stretches, on a thread of its
/// own, with short gaps in which others may commit, until it is stopped.
final class CompetingWriter: Sendable {
    private let stopped = Atomic<Bool>(false)
    private let done = Mutex<Bool>(false)

    /// Starts holding the lock of the database at `path` for `hold` at a time, `gap` apart.
    init(path: String, hold: TimeInterval, gap: TimeInterval) throws {
        let db = try appConnection(path)
        let thread = Thread { [self] in
            while !stopped.load(ordering: .relaxed) {
                try? db.inTransaction(.immediate) { _ in
                    Thread.sleep(forTimeInterval: hold)
                    return .commit
                }
                Thread.sleep(forTimeInterval: gap)
            }
            done.withLock { $0 = true }
        }
        thread.start()
    }

    /// Stops holding the lock, and waits until it is released.
    func stop() async {
        stopped.store(true, ordering: .relaxed)
        _ = await eventually(within: 60) { done.withLock { $0 } }
    }
}

@Suite("Batches sized toward a target on SQLite", .timeLimit(.minutes(5)))
struct AdaptiveBatchTests {
    /// The size of the next batch in the newest progress event that tells one.
    static func latestBatchSize(_ progress: WatchingProgress) -> Int? {
        progress.events.events.reversed().lazy.compactMap { event in
            if case .advanced(let progress) = event { progress.batchSize } else { nil }
        }.first
    }

    /// Each commit's records so far, its time in the run and the next batch's size: `352@461ms:300`.
    static func trace(_ progress: WatchingProgress) -> String {
        progress.events.events.compactMap { event -> String? in
            guard case .advanced(let progress) = event else { return nil }
            return "\(progress.done)@\(Int(progress.elapsed.secondsValue * 1000))ms:\(progress.batchSize ?? 0)"
        }.joined(separator: " ")
    }

    @Test func batchesShrinkWhileAnotherWriterHoldsTheLockAndGrowBackWhenItStops() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(30_000), into: path)
            let progress = WatchingProgress()
            var configuration = Runner.Configuration(parallelism: 2, maximumRate: 1_500)
            // A target a loaded test process still meets once the other writer stops (at 50 ms, commits of a
            // few dozen records slowed by the other tests' load kept the size from growing back).
            configuration.targetBatchDuration = .milliseconds(200)
            let runner = Runner(store: try SQLiteStore(path: path), pipelines: [test.pipeline], configuration: configuration, progress: progress)
            let task = Task { try await runner.run() }
            progress.task.withLock { $0 = task }

            #expect(await eventually(within: 120) { Self.latestBatchSize(progress) != nil })
            let initial = try #require(Self.latestBatchSize(progress))
            // Most commits now wait for the other writer's lock, far longer than the target: the batches
            // shrink toward the fewest records, 10.
            let writer = try CompetingWriter(path: path, hold: 1.0, gap: 0.05)
            let shrunk = await eventually(within: 60) { (Self.latestBatchSize(progress) ?? .max) <= 40 }
            // Taken while the other writer still holds the lock: by the time it has let go (up to a whole hold
            // later) the batches may have grown back most of the way already.
            let smallest = Self.latestBatchSize(progress) ?? 0
            await writer.stop()
            #expect(shrunk, "the batch size stayed at \(Self.latestBatchSize(progress) ?? 0), from \(initial): \(Self.trace(progress))")
            // Commits are quick again: the batches grow back.
            let grown = await eventually(within: 60) { (Self.latestBatchSize(progress) ?? 0) >= 4 * smallest }
            #expect(grown, "the batch size stayed at \(Self.latestBatchSize(progress) ?? 0), from \(smallest): \(Self.trace(progress))")
            task.cancel()
            let summary = try await task.value
            #expect(summary.counts.failed == 0)
            #expect(summary.counts.changed == progress.committed)
            #expect(test.log.all.values.allSatisfy { $0 == 1 })
        }
    }
}
