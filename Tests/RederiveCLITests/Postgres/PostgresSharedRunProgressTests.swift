#if PostgreSQL
import Foundation
import RederiveCLI
import RederivePostgresTestSupport
import Testing

/// `status` of a run that two workers share on PostgreSQL: done of total, the rate lately, the time
/// left, and each worker's share and last heartbeat, as a table and as JSON.
@Suite("progress of a shared run on PostgreSQL", .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .timeLimit(.minutes(3)))
struct PostgresSharedRunProgressTests {
    @Test func statusShowsDoneOfTotalTheRecentRateAndEachWorkersShare() async throws {
        let server = try PostgresServer.shared()
        try await TestStore.postgres.withHarness { harness in
            let url = try #require(harness.serverDatabase)
            let database = PostgresServer.databaseName(in: url)
            let count = 600
            _ = try await harness.rederive("generate", "--count", String(count), "--seed", "27")
            // Paced, so that both workers are still deriving when status looks.
            let arguments = ["run", "--db", url, "--parallel", "1", "--batch-size", "5", "--max-rate", "25", "--progress", "none"]
            let workers = try (0..<2).map { _ in try RederiveProcess.start(arguments, in: harness.directory) }
            do {
                try await Self.expectProgress(of: workers, count: count, harness: harness, server: server, database: database)
            } catch {
                for worker in workers { worker.kill() }
                for worker in workers { _ = try? await worker.wait() }
                throw error
            }
            // Ctrl-C: each worker commits what it holds and leaves the run to the next one.
            for worker in workers { worker.interrupt() }
            for worker in workers { _ = try await worker.wait() }
        }
    }

    @Test func progressJSONCarriesTheSharedRunsFiguresOncePerHeartbeat() async throws {
        try await TestStore.postgres.withHarness { harness in
            let url = try #require(harness.serverDatabase)
            let count = 600
            _ = try await harness.rederive("generate", "--count", String(count), "--seed", "27")
            // Paced, with a heartbeat every second.
            let arguments = ["run", "--db", url, "--parallel", "1", "--batch-size", "5", "--max-rate", "25", "--lease-duration", "3", "--progress", "json"]
            let workers = try (0..<2).map { _ in try RederiveProcess.start(arguments, in: harness.directory) }
            defer { for worker in workers where !worker.hasEnded { worker.kill() } }
            // A `shared` event once both workers have a share with a rate of their own.
            func bothShares(_ event: [String: Any]) -> Bool {
                let shares = event["workers"] as? [[String: Any]] ?? []
                return shares.count == 2 && shares.allSatisfy { $0["recentRate"] is Double }
            }
            let output = try await workers[0].waitForOutput { Self.events($0, "shared").contains(where: bothShares) }
            let event = try #require(Self.events(output, "shared").last(where: bothShares), "\(output) \(workers[0].errorsSoFar())")
            let started = try #require(Self.events(output, "started").first, "\(output)")
            #expect(event["runId"] as? Int == started["runId"] as? Int, "\(event)")
            #expect(event["total"] as? Int == count, "\(event)")
            let done = try #require(event["done"] as? Int)
            #expect(done > 0 && done < count, "\(event)")
            #expect((event["recentRate"] as? Double ?? 0) > 0, "\(event)")
            #expect((event["etaSeconds"] as? Double ?? 0) > 0, "\(event)")
            let shares = try #require(event["workers"] as? [[String: Any]])
            #expect(Set(shares.compactMap { $0["pid"] as? Int }) == Set(workers.map { Int($0.child.pid) }), "\(event)")
            #expect(shares.allSatisfy { $0["share"] is Double && $0["lastHeartbeat"] is String && $0["lastCommit"] is String }, "\(event)")
            #expect(shares.reduce(0) { $0 + ($1["done"] as? Int ?? 0) } == done, "\(event)")

            // Nothing of the run follows a worker's `finished` event.
            for worker in workers {
                let outcome = try await worker.wait()
                #expect(outcome.status == 0, "\(outcome.errors)")
                let kinds = Self.events(outcome.output).compactMap { $0["event"] as? String }
                #expect(kinds.last == "finished", "\(outcome.output)")
            }
        }
    }

    /// The JSON objects of `output`'s complete lines, only those of event `kind` when given.
    static func events(_ output: String, _ kind: String? = nil) -> [[String: Any]] {
        output.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }.filter { kind == nil || $0["event"] as? String == kind }
    }

    /// Once both workers have committed twice, `status` shows the run and both shares.
    static func expectProgress(
        of workers: [RederiveProcess], count: Int, harness: CommandHarness, server: PostgresServer, database: String
    ) async throws {
        do {
            // Both joined one run and committed at least twice each, so each has a rate.
            let ready = await PostgresWatchTests.eventually(within: 120) {
                let shares = (try? server.psql(database, """
                    SELECT count(*) FROM rederive_run_shares s JOIN rederive_leases l ON l.token = s.token
                    WHERE s.recent_rate IS NOT NULL
                    """))?.trimmingCharacters(in: .whitespacesAndNewlines)
                return shares == "2"
            }
            try #require(ready, "the two workers did not both commit twice")

            let json = try await harness.rederive("status", "--format", "json")
            #expect(json.status == 0, "\(json.errors)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
            let runs = try #require(object["runs"] as? [[String: Any]], "\(json.output)")
            try #require(runs.count == 1, "\(json.output)")
            let run = runs[0]
            #expect(run["total"] as? Int == count, "\(json.output)")
            let done = try #require(run["done"] as? Int)
            #expect(done > 0 && done < count, "\(json.output)")
            #expect((run["recentRate"] as? Double ?? 0) > 0, "\(json.output)")
            #expect((run["etaSeconds"] as? Double ?? 0) > 0, "\(json.output)")
            let shares = try #require(run["workers"] as? [[String: Any]])
            #expect(shares.count == 2, "\(json.output)")
            #expect(Set(shares.compactMap { $0["pid"] as? Int }) == Set(workers.map { Int($0.child.pid) }), "\(json.output)")
            #expect(shares.allSatisfy { ($0["done"] as? Int ?? 0) > 0 && $0["lastHeartbeat"] is String && $0["lastCommit"] is String }, "\(json.output)")
            #expect(shares.reduce(0) { $0 + ($1["done"] as? Int ?? 0) } == done, "\(json.output)")

            let table = try await harness.rederive("status")
            #expect(table.output.contains("in progress: ") && table.output.contains(" of \(count) records ("), "\(table.output)")
            #expect(table.output.contains("records/s lately") && table.output.contains("left"), "\(table.output)")
            #expect(table.output.contains("share") && table.output.contains("last heartbeat"), "\(table.output)")
        }
    }
}
#endif
