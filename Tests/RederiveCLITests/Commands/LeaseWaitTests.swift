import Foundation
import GRDB
import Rederive
@testable import RederiveCLI
import Synchronization
import Testing

/// `run` behind another process's lease (a watcher holds it for as long as it runs) says who holds
/// it, ends at once when nothing is stale, and bounds its wait with `--wait` or `--no-wait`.
@Suite("Waiting for the lease", .timeLimit(.minutes(5)))
struct LeaseWaitTests {
    /// Makes the database's lease another process's for an hour: `pid 4242 on elsewhere`, or this
    /// test process when `ours`.
    static func holdLease(_ harness: CommandHarness, ours: Bool = false) throws {
        let now = Date().timeIntervalSince1970
        let host = ours ? ProcessInfo.processInfo.hostName : "elsewhere"
        let pid = ours ? ProcessInfo.processInfo.processIdentifier : 4242
        try harness.connection().write { db in
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO rederive_leases (name, holder, host, process_id, token, acquired_at, renewed_at, expires_at)
                    VALUES ('runner', ?, ?, ?, 'held-by-the-test', ?, ?, ?)
                    """,
                arguments: ["pid \(pid) on \(host)", host, pid, now, now, now + 3_600]
            )
        }
    }

    @Test func aRunBehindAHolderWithNothingStaleEndsAtOnceSayingWhoKeepsTheRecordsCurrent() async throws {
        try await CommandHarness.withHarness { harness in
            #expect(try await harness.rederive("generate", "--count", "4").status == 0)
            #expect(try await harness.rederive("run", "--progress", "none").status == 0)
            try Self.holdLease(harness)
            let run = try await harness.rederive("run", "--progress", "none")
            #expect(run.status == ExitStatus.success, "\(run.errors)")
            #expect(run.output == "nothing is stale in \(harness.databasePath): pid 4242 on elsewhere holds its lease and keeps its records current\n")
        }
    }

    /// The check may find nothing stale before `run` attaches what cancels its task; the task is
    /// cancelled all the same, where it used to wait for the holder's whole lease.
    @Test func aWaitEndedBeforeTheRunAttachesStillCancelsIt() async throws {
        let wait = LeaseWait(NoProgress(), limit: nil, nothingStale: { true })
        wait.report(.waiting(LeaseHolder(worker: "pid 4242 on elsewhere", expiresIn: 3_600)))
        while wait.outcome == nil {
            try await Task.sleep(for: .milliseconds(1))
        }
        let cancelled = Mutex(false)
        wait.attach { cancelled.withLock { $0 = true } }
        #expect(cancelled.withLock { $0 })
        guard case .nothingStale(let holder) = wait.outcome else {
            Issue.record("the wait ended as \(String(describing: wait.outcome))")
            return
        }
        #expect(holder.worker == "pid 4242 on elsewhere")
    }

    /// `run` called in an app's own task (a mounted command) stops with that task: a run waiting for
    /// the holder's hour-long lease ends, where it used to wait the hour out.
    @Test func aRunWaitingForTheLeaseEndsWhenItsCallerIsCancelled() async throws {
        try await CommandHarness.withHarness { harness in
            #expect(try await harness.rederive("generate", "--count", "2").status == 0)
            try Self.holdLease(harness)
            let run = Task { try await harness.rederive("run", "--progress", "none") }
            try await Task.sleep(for: .milliseconds(300))
            run.cancel()
            let outcome = try await run.value
            #expect(outcome.status == ExitStatus.interrupted, "\(outcome.errors)")
            #expect(try await harness.connection().read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM rederive_runs") } == 0)
        }
    }

    @Test func aRunBehindAHolderWithStaleRecordsEndsWithStatus75UnderNoWaitOrWait() async throws {
        try await CommandHarness.withHarness { harness in
            #expect(try await harness.rederive("generate", "--count", "4").status == 0)
            _ = try await harness.rederive("run", "--progress", "none")
            _ = try await harness.rederive("invalidate")
            try Self.holdLease(harness)

            let now = try await harness.rederive("run", "--no-wait", "--progress", "none")
            #expect(now.status == ExitStatus.busy)
            #expect(now.output.isEmpty, "\(now.output)")
            #expect(now.errors == "rederive: pid 4242 on elsewhere holds the lease of \(harness.databasePath) and records are stale; nothing was derived (--no-wait); run again once it ends\n", "\(now.errors)")

            let bounded = try await harness.rederive("run", "--wait", "0.3", "--progress", "plain")
            #expect(bounded.status == ExitStatus.busy)
            #expect(bounded.errors.contains("waiting for pid 4242 on elsewhere, which holds this database's lease and renews it while it runs"), "\(bounded.errors)")
            #expect(bounded.errors.hasSuffix("nothing was derived after waiting 0.3 s; run again once it ends\n"), "\(bounded.errors)")

            let refused = try await harness.rederive("run", "--no-wait", "--wait", "3")
            #expect(refused.status == ExitStatus.usage)
        }
    }

    @Test func theHolderIsNamedByItsCommandWhenItRunsOnThisHost() async throws {
        try await CommandHarness.withHarness { harness in
            #expect(try await harness.rederive("generate", "--count", "2").status == 0)
            try Self.holdLease(harness, ours: true)
            let run = try await harness.rederive("run", "--no-wait", "--progress", "none")
            #expect(run.status == ExitStatus.busy)
            let program = (CommandLine.arguments[0] as NSString).lastPathComponent
            let pid = ProcessInfo.processInfo.processIdentifier
            #expect(run.errors.hasPrefix("rederive: `\(program)"), "\(run.errors)")
            #expect(run.errors.contains("` (pid \(pid) on \(ProcessInfo.processInfo.hostName)) holds the lease of"), "\(run.errors)")
        }
    }

    @Test func ctrlCWhileWaitingForTheLeaseEndsAsInterrupted() async throws {
        try await CommandHarness.withHarness { harness in
            #expect(try await harness.rederive("generate", "--count", "2").status == 0)
            try Self.holdLease(harness)
            let run = try RederiveProcess.start(["run", "--db", harness.databasePath, "--progress", "plain"], in: harness.directory)
            while !run.errorsSoFar().contains("waiting for"), !run.hasEnded {
                try await Task.sleep(for: .milliseconds(5))
            }
            run.interrupt()
            let outcome = try await run.wait()
            #expect(!outcome.signaled && outcome.status == ExitStatus.interrupted, "\(outcome.status): \(outcome.errors)")
            #expect(outcome.errors.hasSuffix("rederive: interrupted while waiting for another process's lease; nothing was derived\n"), "\(outcome.errors)")
            #expect(!OneLineError.leaks.contains { outcome.errors.contains($0) }, "\(outcome.errors)")
        }
    }
}
