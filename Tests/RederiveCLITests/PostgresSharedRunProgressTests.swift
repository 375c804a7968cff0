#if PostgreSQL
import Foundation
import RederiveCLI
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
