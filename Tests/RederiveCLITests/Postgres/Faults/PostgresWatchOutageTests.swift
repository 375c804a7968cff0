#if PostgreSQL
import Foundation
import RederivePostgresTestSupport
import Testing

/// A watcher cut off from the server for longer than its lease while an app goes on inserting:
/// once the link is back it finds and derives every record written meanwhile, each once.
@Suite("rederive watch cut off on PostgreSQL", .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .timeLimit(.minutes(4)))
struct PostgresWatchOutageTests {
    static let program = TrapFixtureCorpus.program

    @Test func aWatcherCutOffWhileInsertsGoOnLeavesNothingStaleOnceBack() async throws {
        let hosts = try CrossHosts.make(workers: 1)
        defer { hosts.tearDown() }
        guard hosts.network != nil else {
            Issue.record("skipped: network namespaces cannot be created here (\(hosts.loopbackReason ?? ""))", severity: .warning)
            return
        }
        let database = PostgresServer.databaseName(in: try hosts.server.makeDatabase())
        let url = hosts.url(database: database)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rederive-watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let created = try await RederiveProcess.run(
            ["run", "--create", "--db", url, "--progress", "none"], wrapper: hosts.wrapper(worker: 0), in: directory, program: Self.program
        )
        try #require(created.status == 0, "\(created.errors)")
        let workers = Workers()
        defer { workers.killRemaining() }
        let watcher = try workers.start(
            ["watch", "--db", url, "--parallel", "2", "--batch-size", "10", "--lease-duration", "5", "--poll-interval", "2"],
            wrapper: hosts.wrapper(worker: 0), in: directory, program: Self.program
        )
        let server = hosts.server
        let derived = "SELECT count(*) FROM items i JOIN items_derived d ON d.id = i.id WHERE d.total IS NOT NULL"
        try PostgresWatchTests.insert(server, database, prefix: "w", from: 0, count: 20)
        #expect(try await PostgresWatchTests.eventually(within: 60) { try PostgresWatchTests.count(server, database, derived) == 20 }, "\(watcher.errorsSoFar())")
        // Cut for four leases, one record inserted every 100 ms meanwhile.
        try hosts.cut(worker: 0, watcher)
        var inserted = 20
        let cutUntil = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < cutUntil {
            try PostgresWatchTests.insert(server, database, prefix: "w", from: inserted, count: 1)
            inserted += 1
            try await Task.sleep(for: .milliseconds(100))
        }
        try hosts.reconnect(worker: 0, watcher)
        // And a few more once it is back, as the app goes on.
        try PostgresWatchTests.insert(server, database, prefix: "w", from: inserted, count: 5)
        inserted += 5
        let total = inserted
        #expect(try await PostgresWatchTests.eventually(within: 90) { try PostgresWatchTests.count(server, database, derived) == total },
                "\((try? PostgresWatchTests.count(server, database, derived)) ?? -1) of \(total) derived; \(watcher.errorsSoFar().split(separator: "\n").suffix(30).joined(separator: "\n"))")
        watcher.terminate()
        let outcome = try await workers.finish(watcher, limit: .seconds(60))
        #expect(!outcome.signaled && outcome.status == 0, "\(outcome.status): \(outcome.errors)")
        // Each record derived once, in runs that all ended.
        let totals = try server.psql(database, "SELECT sum(derived), sum(unchanged), count(*) FILTER (WHERE status = 'running') FROM \(PostgresRunCounts.runs)")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(totals == "\(total)|0|0", "derived | unchanged | running")
    }
}
#endif
