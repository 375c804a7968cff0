#if PostgreSQL
import RederivePostgresTestSupport
import Testing

/// What a test of a run shared across hosts starts from: the server and worker hosts (``CrossHosts``),
/// a database on that server holding a generated corpus, the processes the test starts, and the values
/// a single SQLite process derives from the same corpus, which the shared run must end with.
struct CrossHostCorpus {
    let hosts: CrossHosts
    /// The database's name on ``server``.
    let database: String
    /// How the workers reach the database.
    let url: String
    let harness: CommandHarness
    /// The worker processes; those the test did not reap are killed when it ends.
    let workers: Workers
    /// Every record's derived values after a single SQLite `run` over the same corpus.
    let sqliteValues: [String: [String]]

    var server: PostgresServer { hosts.server }

    /// Runs `body` with `count` records generated from `seed` (3 % broken) by worker 0's host, on a
    /// server that `workers` hosts reach; warns when the hosts are on loopback.
    static func with(count: Int, seed: String, workers: Int, _ body: (CrossHostCorpus) async throws -> Void) async throws {
        let generate = ["generate", "--count", String(count), "--seed", seed, "--corrupt", "0.03"]
        let sqliteValues = try await TestStore.sqlite.withHarness { harness in
            _ = try await harness.rederive(generate)
            _ = try await harness.rederive("run", "--progress", "none")
            return try PostgresCommandTests.derivedValues(harness)
        }
        let hosts = try CrossHosts.make(workers: workers)
        defer { hosts.tearDown() }
        if let reason = hosts.loopbackReason {
            Issue.record("on loopback, not across hosts: network namespaces cannot be created here (\(reason))", severity: .warning)
        }
        let database = try hosts.server.makeDatabase().split(separator: "/").last.map { String($0.prefix { $0 != "?" }) } ?? ""
        let url = hosts.url(database: database)
        try await CommandHarness.withHarness(serverDatabase: url) { harness in
            let processes = Workers()
            defer { processes.killRemaining() }
            let generated = try await RederiveProcess.run(
                generate + ["--db", url], wrapper: hosts.wrapper(worker: 0), in: harness.directory
            )
            try #require(generated.status == 0, "\(generated.errors)")
            try await body(CrossHostCorpus(
                hosts: hosts, database: database, url: url, harness: harness, workers: processes, sqliteValues: sqliteValues
            ))
        }
    }
}
#endif
