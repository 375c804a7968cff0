#if PostgreSQL
import Foundation
import Glibc
import RederiveCLI
import RederivePostgresTestSupport
import Testing

/// SIGINT or SIGTERM of `rederive run` on PostgreSQL ends it as on SQLite: what is in flight is
/// committed, the lease released, the run recorded as interrupted, and the process exits 130 or 143,
/// with nothing on standard error but rederive's own lines. While paused, and with `--isolate`, too.
@Suite(
    "PostgreSQL run stopped by a signal", .serialized, .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason),
    .timeLimit(.minutes(5))
)
struct PostgresSignalTests {
    static let count = 2_000

    /// How a run is stopped: by which signal, with which flags, and whether paused first.
    struct Stop: Sendable, CustomTestStringConvertible {
        let signal: Int32
        var flags: [String] = []
        var paused = false

        var testDescription: String {
            "\(signal == SIGINT ? "SIGINT" : "SIGTERM")\(flags.isEmpty ? "" : " " + flags.joined(separator: " "))\(paused ? " while paused" : "")"
        }

        var status: Int32 { signal == SIGINT ? 130 : 143 }
    }

    /// The longest a run may take to end after the signal: the grace for records in flight, and room
    /// for a loaded machine.
    static let bound: Duration = .seconds(60)

    @Test(arguments: [
        Stop(signal: SIGINT),
        Stop(signal: SIGTERM),
        Stop(signal: SIGINT, flags: ["--isolate"]),
        Stop(signal: SIGTERM, paused: true),
    ])
    func aSignalCommitsWhatIsInFlightReleasesTheLeaseAndEndsTheRunInterrupted(stop: Stop) async throws {
        try await TestStore.postgres.withHarness { harness in
            let url = try #require(harness.serverDatabase)
            let generated = try await harness.rederive("generate", "--count", String(Self.count), "--seed", "38")
            try #require(generated.status == 0, "\(generated.errors)")
            // Paced, so that most records are still to derive when the signal comes.
            let run = try RederiveProcess.start(
                ["run", "--db", url, "--parallel", "2", "--batch-size", "20", "--max-rate", "100", "--progress", "none"] + stop.flags,
                in: harness.directory
            )
            let outcome: RederiveProcess.Outcome
            do {
                try await waitUntil(run, "a batch is committed") { try await harness.count(PostgresRunCounts.committed()) > 0 }
                if stop.paused {
                    let pause = try await harness.rederive("pause")
                    #expect(pause.status == 0, "\(pause.errors)")
                    try await waitUntil(run, "the worker reports itself paused") {
                        try await harness.count("SELECT count(*) FROM rederive_leases WHERE hold = 'paused'") == 1
                    }
                }
                _ = Glibc.kill(run.child.pid, stop.signal)
                let deadline = ContinuousClock.now + Self.bound
                while !run.hasEnded, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(run.hasEnded, "still running \(Self.bound) after the signal")
                run.kill()
                outcome = try await run.wait()
            } catch {
                run.kill()
                _ = try? await run.wait()
                throw error
            }
            #expect(!outcome.signaled && outcome.status == stop.status, "status \(outcome.status): \(outcome.errors)")
            // Only rederive's own lines: the announcement of the signal, nothing of the libraries.
            let lines = outcome.errors.split(separator: "\n").filter { !$0.isEmpty }
            #expect(lines.allSatisfy { $0.hasPrefix("rederive: ") }, "\(outcome.errors)")
            #expect(!outcome.errors.contains("CancellationError") && !outcome.errors.contains("Error:"), "\(outcome.errors)")
            #expect(outcome.output.contains(" interrupted: "), "\(outcome.output)")

            // The run is recorded as interrupted, with what was committed, and the lease is gone.
            let runs = try await harness.rows("SELECT status, derived + failed FROM \(PostgresRunCounts.runs)")
            #expect(runs.count == 1 && runs.first?.first == "interrupted", "\(runs)")
            let committed = Int(runs.first?.last ?? "") ?? 0
            #expect(committed > 0 && committed < Self.count, "\(runs)")
            #expect(try await harness.count("SELECT count(*) FROM rederive_leases") == 0)
            let history = try await harness.rederive("history", "--format", "json")
            let entries = try #require(try JSONSerialization.jsonObject(with: Data(history.output.utf8)) as? [[String: Any]], "\(history.errors)")
            #expect(entries.map { $0["status"] as? String } == ["interrupted"], "\(history.output)")
            // The next run resumes with the rest: every record committed once over the two runs.
            if stop.paused { _ = try await harness.rederive("resume") }
            let resumed = try await harness.rederive("run", "--progress", "none")
            #expect([0, 3].contains(resumed.status), "\(resumed.errors)")
            #expect(try await harness.count("SELECT sum(derived + failed) FROM \(PostgresRunCounts.runs)") == Self.count)
        }
    }

    /// Polls `condition` every 50 ms for at most 60 s, failing when the run ended or time ran out first.
    func waitUntil(_ run: RederiveProcess, _ what: String, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try #require(!run.hasEnded, "the run ended before \(what)")
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("\(what) did not happen within 60 s")
        throw ProcessError("\(what) did not happen within 60 s")
    }
}
#endif
