import Foundation
import GRDB
import RederiveCLI
import Testing

/// The threads a run starts are bounded by the records it has to derive, not by the parallelism
/// asked for: the largest accepted `--parallel` on three records starts three derivation threads.
/// Counted in a process of its own, by the name derivation threads carry, so that neither the
/// runtime's own threads nor other suites' runs count.
@Suite("Worker threads", .timeLimit(.minutes(3)))
struct WorkerThreadCountTests {
    /// The derivation threads of process `pid` now (Linux keeps 15 characters of a thread's name).
    static func derivationThreads(of pid: pid_t) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.count { task in
            let name = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8)
            return name?.hasPrefix("rederive worker") == true
        }
    }

    @Test func aRunStartsNoMoreThreadsThanItHasRecords() async throws {
        let most = 8 * ProcessInfo.processInfo.activeProcessorCount
        // The second record hangs, so the run is still there to count once the others are derived.
        let payloads = ["good-0", "hang", "good-2"].enumerated().map { TrapFixtureCorpus.payload(label: $1, index: $0) }
        try await TrapFixtureCorpus.with(payloads) { directory, database in
            let run = try RederiveProcess.start(
                ["run", "--db", database, "--parallel", "\(most)", "--progress", "none"], in: directory, program: TrapFixtureCorpus.program
            )
            let queue = try DatabaseQueue(path: database)
            var committed = 0
            for _ in 0..<1_200 where committed < 2 && !run.hasEnded {
                try await Task.sleep(for: .milliseconds(50))
                committed = try await queue.read { db in
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM rederive_stamps WHERE processor = 'total'") ?? 0
                }
            }
            let threads = Self.derivationThreads(of: run.child.pid)
            run.interrupt()
            let outcome = try await run.wait()
            #expect(committed == 2, "the good records were not derived: \(outcome.errors.suffix(300))")
            #expect(threads >= 1, "no derivation thread was seen while a record was being derived")
            #expect(threads <= payloads.count, "--parallel \(most) on \(payloads.count) records started \(threads) derivation threads")
            #expect(!outcome.signaled && outcome.status == 130, "status \(outcome.status): \(outcome.errors.suffix(300))")
        }
    }
}
