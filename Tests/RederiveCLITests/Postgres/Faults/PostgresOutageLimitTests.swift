#if PostgreSQL
import Foundation
import RederivePostgresTestSupport
import Testing

/// The outage policy of `run` and `watch`, with real faults: a worker cut off for good ends by itself
/// past `--outage-limit`, in one line and with status 69; a database that refuses the work for good
/// (read-only, renamed away) ends them at once in one line; and a minute's outage is logged in a few
/// lines, not one per failed heartbeat.
@Suite("PostgreSQL outage policy", .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .timeLimit(.minutes(5)))
struct PostgresOutageLimitTests {
    static let count = 240
    static let seed = "7"

    /// The lines of `errors` that start with rederive's one prefix: what ended the command.
    static func endingLines(_ errors: String) -> [String] {
        errors.split(separator: "\n").map(String.init).filter { $0.hasPrefix("rederive: ") }
    }

    /// A paced run of `flags` on a cluster of its own, started once its records are generated.
    static func pacedRun(
        _ harness: CommandHarness, _ url: String, _ flags: [String]
    ) async throws -> RederiveProcess {
        let generated = try await harness.rederive("generate", "--count", String(count), "--seed", seed)
        try #require(generated.status == 0, "\(generated.errors)")
        let run = try RederiveProcess.start(
            ["run", "--db", url, "--parallel", "2", "--batch-size", "10", "--max-rate", "30", "--progress", "json"] + flags,
            in: harness.directory
        )
        _ = try await run.waitForOutput { $0.components(separatedBy: "\"event\":\"progress\"").count > 3 }
        return run
    }

    @Test func aWorkerCutOffForGoodEndsPastItsOutageLimitInOneLineWithStatus69() async throws {
        let server = try PostgresServer.startAlone()
        defer { server.stop() }
        let url = try server.makeDatabase()
        try await CommandHarness.withHarness(serverDatabase: url) { harness in
            let run = try await Self.pacedRun(harness, url, ["--outage-limit", "3", "--lease-duration", "2"])
            // Stopped, and never started again.
            try server.control("stop", options: ["-m", "fast"])
            let ending = try await HostileRunner.wait(for: run, within: .seconds(120))
            #expect(!ending.hung, "the worker did not end by itself: \(ending.outcome.errors)")
            #expect(ending.outcome.status == 69 && !ending.outcome.signaled, "\(ending.outcome.status): \(ending.outcome.errors)")
            let ending_ = Self.endingLines(ending.outcome.errors)
            #expect(ending_.count == 1, "\(ending.outcome.errors)")
            #expect(
                ending_.first?.hasPrefix("rederive: the database was out of reach for longer than the outage limit of 3 s; ") == true,
                "\(ending.outcome.errors)"
            )
            #expect(!ending.outcome.errors.contains("CancellationError") && !ending.outcome.errors.contains("PoolError"))
        }
    }

    @Test func aReadOnlyDatabaseEndsRunAndWatchAtOnceInOneLine() async throws {
        let server = try PostgresServer.shared()
        let url = try server.makeDatabase()
        let database = PostgresServer.databaseName(in: url)
        try await CommandHarness.withHarness(serverDatabase: url) { harness in
            let generated = try await harness.rederive("generate", "--count", "20", "--seed", Self.seed)
            try #require(generated.status == 0, "\(generated.errors)")
            try server.psql(database, "ALTER DATABASE \(database) SET default_transaction_read_only = on")
            for command in [["run", "--progress", "none"], ["watch"]] {
                let process = try RederiveProcess.start(command + ["--db", url], in: harness.directory)
                let ending = try await HostileRunner.wait(for: process, within: .seconds(30))
                #expect(!ending.hung, "\(command[0]) went on: \(ending.outcome.errors.prefix(2_000))")
                #expect(ending.outcome.status == 1, "\(command[0]): \(ending.outcome.status): \(ending.outcome.errors.prefix(2_000))")
                // One line: no retry, no outage logged first.
                let lines = Self.endingLines(ending.outcome.errors)
                #expect(lines.count == 1, "\(command[0]): \(ending.outcome.errors.prefix(2_000))")
                #expect(!ending.outcome.errors.contains("retrying"), "\(command[0]): \(ending.outcome.errors.prefix(2_000))")
                #expect(
                    lines.first?.hasPrefix("rederive: cannot ") == true && lines.first?.hasSuffix(
                        ": the server is read-only (a standby, or default_transaction_read_only is on); rederive writes, and needs the primary"
                    ) == true,
                    "\(command[0]): \(ending.outcome.errors.prefix(2_000))"
                )
            }
        }
    }

    @Test func aDatabaseRenamedAwayInTheMiddleOfARunEndsItInOneLine() async throws {
        let server = try PostgresServer.startAlone()
        defer { server.stop() }
        let url = try server.makeDatabase()
        let database = PostgresServer.databaseName(in: url)
        try await CommandHarness.withHarness(serverDatabase: url) { harness in
            let run = try await Self.pacedRun(harness, url, [])
            // No session may reach it while it is renamed: connections are refused, the run's ended.
            try server.psql("postgres", "ALTER DATABASE \(database) ALLOW_CONNECTIONS false")
            try server.psql("postgres", "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(database)'")
            try server.psql("postgres", "ALTER DATABASE \(database) RENAME TO \(database)_renamed")
            try server.psql("postgres", "ALTER DATABASE \(database)_renamed ALLOW_CONNECTIONS true")
            let ending = try await HostileRunner.wait(for: run, within: .seconds(60))
            #expect(!ending.hung, "the run did not end: \(ending.outcome.errors)")
            #expect(ending.outcome.status == 1, "\(ending.outcome.status): \(ending.outcome.errors)")
            let lines = Self.endingLines(ending.outcome.errors)
            #expect(lines.count == 1, "\(ending.outcome.errors)")
            #expect(lines.first?.hasSuffix(": the database does not exist (was it dropped or renamed?)") == true, "\(ending.outcome.errors)")
        }
    }

    /// A run paused (so that no claim or commit is cut short), its server stopped for a minute, then
    /// started and the run resumed: the outage is told when it begins, reminded at most every 30 s,
    /// and told when it ends; no line per failed heartbeat or retried statement, even at `info`.
    @Test func aMinuteLongOutageIsLoggedInAtMostFourLines() async throws {
        let server = try PostgresServer.startAlone()
        defer { server.stop() }
        let url = try server.makeDatabase()
        let database = PostgresServer.databaseName(in: url)
        try await CommandHarness.withHarness(serverDatabase: url) { harness in
            let run = try await Self.pacedRun(harness, url, ["--log-level", "info"])
            let outcome: RederiveProcess.Outcome
            do {
                let pause = try await harness.rederive("pause")
                try #require(pause.status == 0, "\(pause.errors)")
                try await PostgresCrossHostTests.waitUntil("the worker reports itself paused", limit: .seconds(30), state: { run.errorsSoFar() }) {
                    try server.psql(database, "SELECT count(*) FROM rederive_leases WHERE hold = 'paused'")
                        .trimmingCharacters(in: .whitespacesAndNewlines) == "1"
                }
                let before = run.errorsSoFar().split(separator: "\n").count
                try server.control("stop", options: ["-m", "fast"])
                try await Task.sleep(for: .seconds(60))
                try server.control("start")
                // Told it is back by a heartbeat, then resumed.
                try await PostgresCrossHostTests.waitUntil("the outage is told over", limit: .seconds(60), state: { run.errorsSoFar() }) {
                    run.errorsSoFar().contains(" the database is reached again ")
                }
                let during = run.errorsSoFar().split(separator: "\n").dropFirst(before).map(String.init)
                #expect(during.count <= 4, "\(during.joined(separator: "\n"))")
                let resume = try await harness.rederive("resume")
                #expect(resume.status == 0, "\(resume.errors)")
                outcome = try await run.wait()
            } catch {
                run.kill()
                _ = try? await run.wait()
                throw error
            }
            #expect(outcome.status == 0, "\(outcome.status): \(outcome.errors)")
            let lines = outcome.errors.split(separator: "\n").map(String.init)
            #expect(lines.filter { $0.contains(" cannot reach the database; retrying until it is back ") }.count == 1, "\(outcome.errors)")
            #expect(lines.filter { $0.contains(" the database is reached again ") && $0.contains(" outage=") }.count == 1, "\(outcome.errors)")
            #expect(lines.filter { $0.contains(" the database is still out of reach; ") }.count <= 2, "\(outcome.errors)")
            #expect(!lines.contains { $0.contains("cannot renew the lease") || $0.contains("trying again") }, "\(outcome.errors)")
        }
    }
}
#endif
