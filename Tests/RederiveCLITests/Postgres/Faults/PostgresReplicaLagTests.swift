#if PostgreSQL
import Foundation
import RederivePostgresTestSupport
import Testing

/// `run --max-replica-lag` against a real streaming standby: while the standby's replay is paused
/// the lag grows past the bound and claiming stops; after the replay resumes it starts again, and
/// the run's log says when the throttle held and when it cleared.
@Suite("PostgreSQL replica lag throttle", .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .timeLimit(.minutes(5)))
struct PostgresReplicaLagTests {
    @Test func claimingStopsWhileTheStandbyLagsAndStartsAgainWhenItCatchesUp() async throws {
        let servers = try ReplicatedServers.start()
        defer { servers.stop() }
        let (primary, standby) = (servers.primary, servers.standby)
        let url = try primary.makeDatabase()
        let database = PostgresServer.databaseName(in: url)
        try await CommandHarness.withHarness(serverDatabase: url) { harness in
            let generated = try await RederiveProcess.run(["generate", "--db", url, "--count", "200"], in: harness.directory)
            try #require(generated.status == 0, "\(generated.errors)")
            func committed() throws -> Int {
                Int(try primary.psql(database, "SELECT coalesce(sum(derived + unchanged + failed), 0) FROM rederive_run_shares")
                    .trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
            }
            let run = try RederiveProcess.start(
                ["run", "--db", url, "--parallel", "2", "--batch-size", "10", "--max-rate", "20", "--lease-duration", "3",
                 "--max-replica-lag", "1", "--progress", "json", "--log-level", "notice"],
                in: harness.directory
            )
            defer { if !run.hasEnded { run.kill() } }
            _ = try await run.waitForOutput { $0.contains("\"event\":\"progress\"") }
            try standby.psql("postgres", "SELECT pg_wal_replay_pause()")
            let held = try await run.waitForOutput { $0.contains("\"event\":\"held\"") }
            #expect(held.contains("throttled (replica lag: "), "\(held) \(run.errorsSoFar())")
            let stopped = try committed()
            try await Task.sleep(for: .seconds(2))
            #expect(try committed() == stopped)
            #expect(stopped < 200)

            try standby.psql("postgres", "SELECT pg_wal_replay_resume()")
            let outcome = try await run.wait()
            #expect([0, 3].contains(outcome.status), "\(outcome.output) \(outcome.errors)")
            #expect(outcome.output.contains("\"event\":\"resumed\""), "\(outcome.output)")
            #expect(try committed() == 200)
            #expect(outcome.errors.contains("throttle holds") && outcome.errors.contains("throttle cleared"), "\(outcome.errors)")
        }
    }
}
#endif
