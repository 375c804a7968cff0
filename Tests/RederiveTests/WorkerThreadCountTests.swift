import Foundation
import Rederive
import Synchronization
import Testing

/// The threads a run starts are bounded by the records it has to derive, not by the parallelism
/// asked for: a run told to use 300 workers on 4 records starts a handful of threads.
@Suite("Worker threads", .serialized)
struct WorkerThreadCountTests {
    /// The runners' derivation threads this process has now, by the name they carry (Linux keeps 15
    /// characters of it): other suites running beside this one start threads of their own, the
    /// runtime's pools grow under load, and neither is what this test counts.
    static func threadCount() -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.count { task in
            let name = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
            return name?.hasPrefix("rederive worker") == true
        }
    }

    @Test func aRunStartsNoMoreThreadsThanItHasRecords() async throws {
        try await withTemporaryDatabase { path in
            let most = Mutex(0)
            var test = TestPipeline()
            test.onTotal = { _ in
                let count = Self.threadCount()
                most.withLock { $0 = max($0, count) }
            }
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(4), into: path)
            let before = Self.threadCount()
            let summary = try await run(test.pipeline, at: path, Runner.Configuration(parallelism: 300, batchSize: 7))
            #expect(summary.counts == RunCounts(derived: 4))
            let started = most.withLock { $0 } - before
            // Four derivation threads, and room for runs of other suites beside this one; far from 300.
            #expect(started >= 1, "no derivation thread was seen while records were derived")
            #expect(started < 40, "the run had \(started) more derivation threads than before it started")
        }
    }
}
