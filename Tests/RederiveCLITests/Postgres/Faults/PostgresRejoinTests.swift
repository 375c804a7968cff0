#if PostgreSQL
import Foundation
import RederiveCLI
import RederivePostgresTestSupport
import Testing

/// Workers cut off from the server for far longer than their lease (2 s) carry on once the link is
/// back: they wait the outage out, take a new lease when the old one was taken over, rejoin the same
/// run, and the run ends completed, with every record committed once and one run in `history`.
@Suite("PostgreSQL workers rejoin their run after an outage", .serialized, .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .timeLimit(.minutes(5)))
struct PostgresRejoinTests {
    static let count = 800
    static let outage: Duration = .seconds(60)

    /// Expects `outcome` to be a worker that ended by itself, all derived (3: some generated records
    /// are corrupt and fail), with no fatal line.
    static func expectCarriedOn(_ outcome: RederiveProcess.Outcome, _ who: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!outcome.signaled && [0, 3].contains(outcome.status), "\(who): \(outcome.status) \(outcome.errors)", sourceLocation: sourceLocation)
        #expect(!outcome.errors.contains("\nrederive: ") && !outcome.errors.hasPrefix("rederive: "), "\(who): \(outcome.errors)", sourceLocation: sourceLocation)
    }

    /// Starts `run --workers-only` from worker host `worker`, with the cut workers' batch, rate and lease.
    static func startWorkersOnly(_ run: ClaimFaultRun, onWorker worker: Int, in directory: URL) throws -> RederiveProcess {
        try run.workers.start(
            ["run", "--workers-only", "--db", run.hosts.url(database: run.database), "--parallel", "2", "--batch-size", "10",
             "--max-rate", "8", "--lease-duration", String(PostgresClaimFaultTests.lease.components.seconds), "--progress", "none"],
            wrapper: run.hosts.wrapper(worker: worker), in: directory
        )
    }

    @Test func aWorkerCutInsideAClaimForAMinuteCarriesOnInTheSameRun() async throws {
        try await ClaimFaultRun.with(count: Self.count) { run, _ in
            try run.cutOff(try await run.catchInsideAClaim())
            try await Task.sleep(for: Self.outage)
            try run.hosts.reconnect(worker: 1, run.victim)
            Self.expectCarriedOn(try await run.workers.finish(run.victim), "the worker cut inside a claim")
            Self.expectCarriedOn(try await run.workers.finish(run.survivor), "the other worker")
            try run.expectEveryRecordCommittedOnce(count: Self.count)
        }
    }

    /// Cut inside a commit before its COMMIT was sent, the worker knows the commit was rolled back:
    /// it keeps its lease for it (no "outcome is unknown"), and tries the commit again once back.
    @Test func aWorkerCutInsideACommitForAMinuteCarriesOnInTheSameRun() async throws {
        try await ClaimFaultRun.with(count: Self.count) { run, _ in
            try run.cutOff(try await run.catchVictim(.commit))
            try await Task.sleep(for: Self.outage)
            try run.hosts.reconnect(worker: 1, run.victim)
            let returned = try await run.workers.finish(run.victim)
            Self.expectCarriedOn(returned, "the worker cut inside a commit")
            #expect(!returned.errors.contains("a commit's outcome is unknown"), "\(returned.errors)")
            Self.expectCarriedOn(try await run.workers.finish(run.survivor), "the other worker")
            try run.expectEveryRecordCommittedOnce(count: Self.count)
        }
    }

    /// Both workers of a run cut off past their leases' expiry, then back: a worker started with
    /// `--workers-only` then joins their run, rather than record it as interrupted and start another.
    @Test func workersOnlyAfterTheLeasesLapsedJoinsTheSameRun() async throws {
        try await ClaimFaultRun.with(count: Self.count) { run, harness in
            try run.hosts.cut(worker: 0, run.survivor)
            try run.hosts.cut(worker: 1, run.victim)
            // Four leases: every lease of the run has lapsed.
            try await Task.sleep(for: PostgresClaimFaultTests.lease * 4)
            try run.hosts.reconnect(worker: 0, run.survivor)
            try run.hosts.reconnect(worker: 1, run.victim)
            let committed = "SELECT count(*) FROM rederive_records WHERE committed_run IS NOT NULL"
            let before = try PostgresWatchTests.count(run.server, run.database, committed)
            try await PostgresCrossHostTests.waitUntil("the workers commit again", limit: .seconds(60), state: run.state) {
                try PostgresWatchTests.count(run.server, run.database, committed) > before + 10 || run.victim.hasEnded || run.survivor.hasEnded
            }
            let joining = try Self.startWorkersOnly(run, onWorker: 0, in: harness.directory)
            let joined = try await run.workers.finish(joining)
            Self.expectCarriedOn(joined, "the worker started with --workers-only")
            #expect(!joined.output.contains("nothing to join"), "\(joined.output)")
            Self.expectCarriedOn(try await run.workers.finish(run.victim), "the first worker")
            Self.expectCarriedOn(try await run.workers.finish(run.survivor), "the second worker")
            try run.expectEveryRecordCommittedOnce(count: Self.count)
        }
    }

    /// Issue 38, item 6: after an outage past its lease, a worker whose lease was taken over comes back
    /// with a new one, and `run --workers-only` started then must find the run that new lease derives.
    /// The victim is cut until the survivor takes its lease over, then the survivor is cut until its
    /// own lease lapses too, and the victim's link comes back first: the run's only live worker is the
    /// victim, under the lease it took after the outage. Were that lease not attached to the run, the
    /// worker started with `--workers-only` would record the run as interrupted and start another,
    /// while the victim, and then the survivor, go on committing into the first.
    @Test func workersOnlyJoinsTheRunOfAWorkerBackWithANewLease() async throws {
        try await ClaimFaultRun.with(count: Self.count) { run, harness in
            try run.hosts.cut(worker: 1, run.victim)
            try await PostgresCrossHostTests.waitUntil("the survivor takes the victim's lease over", limit: ClaimFaultRun.takeoverLimit, state: run.state) {
                try run.leases()[run.victim.child.pid] == nil || run.survivor.hasEnded
            }
            try run.hosts.cut(worker: 0, run.survivor)
            let live = "SELECT count(*) FROM rederive_leases WHERE expires_at > clock_timestamp()"
            try await PostgresCrossHostTests.waitUntil("the survivor's lease lapses", limit: .seconds(30), state: run.state) {
                try PostgresWatchTests.count(run.server, run.database, live) == 0
            }
            try run.hosts.reconnect(worker: 1, run.victim)
            let victimCommits = """
                SELECT count(*) FROM rederive_leases l JOIN rederive_run_shares s ON s.token = l.token
                WHERE l.process_id = \(run.victim.child.pid) AND l.expires_at > clock_timestamp()
                """
            try await PostgresCrossHostTests.waitUntil(
                "the victim commits with a new lease", limit: PostgresClaimFaultTests.rejoinLimit, state: run.state
            ) {
                try PostgresWatchTests.count(run.server, run.database, victimCommits) > 0 || run.victim.hasEnded
            }
            try #require(!run.victim.hasEnded && !run.survivor.hasEnded, "a worker ended before --workers-only started: \(run.state())")
            let joining = try Self.startWorkersOnly(run, onWorker: 1, in: harness.directory)
            let attached = "SELECT count(*) FROM rederive_leases WHERE process_id = \(joining.child.pid) AND run_id IS NOT NULL"
            try await PostgresCrossHostTests.waitUntil("the worker started with --workers-only derives a run", limit: .seconds(60), state: run.state) {
                try PostgresWatchTests.count(run.server, run.database, attached) > 0 || joining.hasEnded
            }
            // One run while the survivor is still cut off: the new worker joined the victim's.
            let runs = try run.server.psqlRows(run.database, "SELECT status FROM rederive_runs ORDER BY id")
            #expect(runs == [["running"]], "\(runs)")
            try run.hosts.reconnect(worker: 0, run.survivor)
            let joined = try await run.workers.finish(joining)
            Self.expectCarriedOn(joined, "the worker started with --workers-only")
            #expect(!joined.output.contains("nothing to join"), "\(joined.output)")
            Self.expectCarriedOn(try await run.workers.finish(run.victim), "the victim")
            Self.expectCarriedOn(try await run.workers.finish(run.survivor), "the survivor")
            try run.expectEveryRecordCommittedOnce(count: Self.count)
        }
    }
}
#endif
