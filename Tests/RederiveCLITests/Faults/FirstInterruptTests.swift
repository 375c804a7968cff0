import Foundation
import GRDB
import RederiveCLI
import Testing

/// The first SIGINT ends a run within a bounded time whatever its flags: a record that hangs is left
/// behind after a short grace, however long `--timeout` is and with `--isolate` too; and the largest
/// `--parallel` accepted runs a small database to its end.
@Suite("First interrupt", .serialized, .timeLimit(.minutes(5)))
struct FirstInterruptTests {
    static let program = TrapFixtureCorpus.program

    /// The longest a run may take to end after its first SIGINT: the 10 s grace for records in
    /// flight, and ample room for a loaded machine.
    static let bound: Duration = .seconds(45)

    /// A database of `count` good records, and one that hangs (`k7`) when `hang` is set.
    func withCorpus(count: Int = 31, hang: Bool, _ body: (URL, String) async throws -> Void) async throws {
        let payloads = (0..<count).map { index in
            TrapFixtureCorpus.payload(label: hang && index == 7 ? "hang" : "good-\(index)", index: index)
        }
        try await TrapFixtureCorpus.with(payloads, body)
    }

    /// Waits for `run` to end, at most `bound`; kills it when it does not, so that no test leaves a
    /// process behind. Returns whether it ended by itself, and how.
    func end(_ run: RederiveProcess, within bound: Duration) async throws -> (ended: Bool, outcome: RederiveProcess.Outcome) {
        let deadline = ContinuousClock.now + bound
        while !run.hasEnded, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        let ended = run.hasEnded
        if !ended { run.kill() }
        return (ended, try await run.wait())
    }

    /// Waits until the run has committed every record but the one that hangs.
    func waitForGoodRecords(_ database: String, count: Int) async throws {
        let queue = try DatabaseQueue(path: database)
        for _ in 0..<1_200 {
            let committed = try await queue.read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM rederive_stamps WHERE processor = 'total'") ?? 0
            }
            if committed >= count { return }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    @Test(arguments: [
        ["--timeout", "3600"],
        ["--isolate"],
        ["--isolate", "--timeout", "3600"],
    ])
    func theFirstInterruptEndsARunWhoseRecordHangs(flags: [String]) async throws {
        try await withCorpus(hang: true) { directory, database in
            let run = try RederiveProcess.start(
                ["run", "--db", database, "--parallel", "2", "--progress", "none"] + flags, in: directory, program: Self.program
            )
            try await waitForGoodRecords(database, count: 30)
            run.interrupt()
            let (ended, outcome) = try await end(run, within: Self.bound)
            #expect(ended, "\(flags): still running \(Self.bound) after SIGINT")
            #expect(!outcome.signaled && outcome.status == 130, "\(flags): status \(outcome.status): \(outcome.errors.suffix(300))")
            #expect(outcome.output.contains("30 derived"), "\(flags): \(outcome.output)")
        }
    }

    @Test func sigtermEndsARunWithStatus143AsAShellReportsIt() async throws {
        try await withCorpus(hang: true) { directory, database in
            let run = try RederiveProcess.start(
                ["run", "--db", database, "--parallel", "2", "--progress", "none"], in: directory, program: Self.program
            )
            try await waitForGoodRecords(database, count: 30)
            run.terminate()
            let (ended, outcome) = try await end(run, within: Self.bound)
            #expect(ended, "still running \(Self.bound) after SIGTERM")
            #expect(!outcome.signaled && outcome.status == 143, "status \(outcome.status): \(outcome.errors.suffix(300))")
            #expect(outcome.output.contains("30 derived"), "\(outcome.output)")
        }
    }

    @Test(arguments: [[], ["--isolate"]])
    func theLargestAcceptedParallelRunsASmallDatabaseToItsEnd(flags: [String]) async throws {
        let most = 8 * ProcessInfo.processInfo.activeProcessorCount
        try await withCorpus(count: 200, hang: false) { directory, database in
            let run = try RederiveProcess.start(
                ["run", "--db", database, "--parallel", "\(most)", "--progress", "none"] + flags, in: directory, program: Self.program
            )
            // The threads it holds while it runs: one per worker at most, and the runtime's own.
            var threads = 0
            let deadline = ContinuousClock.now + .seconds(120)
            while !run.hasEnded, ContinuousClock.now < deadline {
                let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(run.child.pid)/task").count) ?? 0
                threads = max(threads, tasks)
                try await Task.sleep(for: .milliseconds(5))
            }
            let (ended, outcome) = try await end(run, within: .seconds(1))
            #expect(ended, "--parallel \(most) \(flags) on 200 records still running after 120 s")
            #expect(threads < most + 64, "--parallel \(most) \(flags) held \(threads) threads")
            #expect(!outcome.signaled && outcome.status == 0, "status \(outcome.status): \(outcome.errors.suffix(300))")
            #expect(outcome.output.contains("200 derived"), "\(outcome.output)")
        }
    }
}
