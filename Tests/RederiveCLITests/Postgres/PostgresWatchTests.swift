#if PostgreSQL
import Foundation
import RederivePostgresTestSupport
import Testing

/// `rederive watch` on PostgreSQL: watchers on one database share a stream of inserts through the
/// leases and claims, records invalidated during a watcher's run are derived again in it, and a
/// watcher rides out a server restart, logged once when it starts and once when it ends whether or
/// not a statement met it; no record is derived twice.
@Suite("rederive watch on PostgreSQL", .serialized, .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .timeLimit(.minutes(5)))
struct PostgresWatchTests {
    static let program = TrapFixtureCorpus.program

    /// Inserts `count` records keyed `prefix0`, `prefix1`, … in one statement, as an app's batch.
    static func insert(_ server: PostgresServer, _ database: String, prefix: String, from first: Int, count: Int) throws {
        let rows = (first..<(first + count)).map { index in
            "('\(prefix)\(index)', convert_to('{\"label\":\"w\",\"values\":[\(index),1,2]}', 'UTF8'))"
        }
        try server.psql(database, "INSERT INTO items (key, payload) VALUES \(rows.joined(separator: ", "))")
    }

    static func count(_ server: PostgresServer, _ database: String, _ sql: String) throws -> Int {
        Int(try server.psql(database, sql).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// Polls `condition` every 50 ms (each poll starts a `psql`) until it holds, as the SQLite watch
    /// tests do.
    static func eventually(within seconds: Double = 120, _ condition: () throws -> Bool) async rethrows -> Bool {
        try await WatchCommandTests.eventually(within: seconds, every: .milliseconds(50), condition)
    }

    /// A new database on `server` that the fixture's pipeline is prepared in, and a working directory
    /// for the processes, which the caller removes.
    static func preparedDatabase(on server: PostgresServer) async throws -> (url: String, database: String, directory: URL) {
        let url = try server.makeDatabase()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rederive-watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        do {
            let created = try await RederiveProcess.run(["run", "--create", "--db", url, "--progress", "none"], in: directory, program: program)
            try #require(created.status == 0, "\(created.errors)")
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        return (url, PostgresServer.databaseName(in: url), directory)
    }

    /// What `history --format json` counts over every run: each record derived once shows as one
    /// `derived`, and any derived twice as one more (`unchanged` the second time).
    static func historyTotals(_ url: String, in directory: URL) async throws -> (derived: Int, unchanged: Int, running: Int) {
        let history = try await RederiveProcess.run(["history", "--db", url, "--format", "json"], in: directory, program: program)
        let runs = try #require(try JSONSerialization.jsonObject(with: Data(history.output.utf8)) as? [[String: Any]], "\(history.errors)")
        return (
            runs.reduce(0) { $0 + ($1["derived"] as? Int ?? 0) },
            runs.reduce(0) { $0 + ($1["unchanged"] as? Int ?? 0) },
            runs.filter { $0["status"] as? String == "running" }.count
        )
    }

    @Test func twoWatchersShareOneStreamOfInsertsAndDeriveEachRecordOnce() async throws {
        let server = try PostgresServer.shared()
        let (url, database, directory) = try await Self.preparedDatabase(on: server)
        defer { try? FileManager.default.removeItem(at: directory) }
        let watchers = try (0..<2).map { _ in
            try RederiveProcess.start(["watch", "--db", url, "--parallel", "2", "--batch-size", "20"], in: directory, program: Self.program)
        }
        defer { watchers.forEach { $0.kill() } }
        // Both watchers hold a lease: `status` lists them.
        #expect(try await Self.eventually {
            try Self.count(server, database, "SELECT count(*) FROM rederive_leases WHERE expires_at > clock_timestamp()") == 2
        })
        let status = try await RederiveProcess.run(["status", "--db", url, "--format", "json"], in: directory, program: Self.program)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any], "\(status.errors)")
        #expect((parsed["workers"] as? [[String: Any]])?.count == 2, "\(status.output)")
        // A stream of inserts: 30 statements of 10 records, 50 ms apart.
        for batch in 0..<30 {
            try Self.insert(server, database, prefix: "s", from: batch * 10, count: 10)
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(try await Self.eventually {
            try Self.count(server, database, "SELECT count(*) FROM items i JOIN items_derived d ON d.id = i.id WHERE d.total IS NOT NULL") == 300
        }, "\(watchers.map { $0.errorsSoFar() })")
        for watcher in watchers { watcher.terminate() }
        for watcher in watchers {
            let outcome = try await watcher.wait()
            #expect(!outcome.signaled && outcome.status == 0, "\(outcome.status): \(outcome.errors)")
        }
        #expect(try Self.count(server, database, "SELECT count(*) FROM rederive_leases") == 0)
        #expect(try Self.count(server, database, """
            SELECT count(*) FROM items i JOIN items_derived d ON d.id = i.id
            WHERE d.total = CAST(substr(i.key, 2) AS double precision) + 3
            """) == 300)
        let totals = try await Self.historyTotals(url, in: directory)
        #expect(totals.derived == 300 && totals.unchanged == 0 && totals.running == 0, "\(totals)")
    }

    @Test func aServerRestartWhileWatchingLeavesEveryRecordDerivedOnce() async throws {
        // A cluster of its own: the shared one serves other tests while this one restarts.
        let server = try PostgresServer.startAlone()
        defer { server.stop() }
        let (url, database, directory) = try await Self.preparedDatabase(on: server)
        defer { try? FileManager.default.removeItem(at: directory) }
        let watcher = try RederiveProcess.start(
            ["watch", "--db", url, "--parallel", "2", "--batch-size", "10", "--poll-interval", "1"], in: directory, program: Self.program
        )
        defer { watcher.kill() }
        let derived = "SELECT count(*) FROM items i JOIN items_derived d ON d.id = i.id WHERE d.total IS NOT NULL"
        for batch in 0..<10 {
            try Self.insert(server, database, prefix: "r", from: batch * 10, count: 10)
        }
        #expect(try await Self.eventually { try Self.count(server, database, derived) == 100 }, "\(watcher.errorsSoFar())")
        try server.control("restart", options: ["-m", "fast"])
        // Written after the restart: the watcher has reconnected and listens again.
        for batch in 10..<20 {
            try Self.insert(server, database, prefix: "r", from: batch * 10, count: 10)
        }
        #expect(try await Self.eventually(within: 60) { try Self.count(server, database, derived) == 200 }, "\(watcher.errorsSoFar().split(separator: "\n").suffix(40).joined(separator: "\n"))")
        #expect(!watcher.hasEnded, "\(watcher.errorsSoFar())")
        watcher.terminate()
        // A watcher that does not stop is killed rather than left to hang the suite.
        if !(await Self.eventually(within: 60) { watcher.hasEnded }) { watcher.kill() }
        let outcome = try await watcher.wait()
        #expect(!outcome.signaled && outcome.status == 0, "\(outcome.status): \(outcome.errors)")
        let totals = try await Self.historyTotals(url, in: directory)
        #expect(totals.derived == 200 && totals.unchanged == 0 && totals.running == 0, "\(totals)")
        // The outage is logged once when it starts and once when it ends, not once per retry, and by
        // the store alone: the watcher does not say it again in its own words.
        Self.expectOneOutage(in: outcome.errors)
    }

    @Test func aServerRestartThatFindsTheWatcherIdleIsLoggedOnceAtEachEnd() async throws {
        let server = try PostgresServer.startAlone()
        defer { server.stop() }
        let (url, database, directory) = try await Self.preparedDatabase(on: server)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Idle between signals: no poll and no heartbeat falls in the restart, so only the listening
        // connection meets it.
        let watcher = try RederiveProcess.start(
            ["watch", "--db", url, "--parallel", "2", "--poll-interval", "600", "--lease-duration", "600"],
            in: directory, program: Self.program
        )
        defer { watcher.kill() }
        let derived = "SELECT count(*) FROM items i JOIN items_derived d ON d.id = i.id WHERE d.total IS NOT NULL"
        try Self.insert(server, database, prefix: "i", from: 0, count: 10)
        #expect(try await Self.eventually { try Self.count(server, database, derived) == 10 }, "\(watcher.errorsSoFar())")
        // Its run ends once nothing was found for the quiet period: from then on it only listens.
        #expect(await Self.eventually(within: 60) { watcher.errorsSoFar().contains(" info run ended ") }, "\(watcher.errorsSoFar())")
        try server.control("restart", options: ["-m", "fast"])
        // Told before anything is written again: the listening connection's loss and return are the outage.
        #expect(await Self.eventually(within: 60) {
            watcher.errorsSoFar().contains(" info the database is reached again ")
        }, "\(watcher.errorsSoFar())")
        try Self.insert(server, database, prefix: "i", from: 10, count: 10)
        #expect(try await Self.eventually(within: 60) { try Self.count(server, database, derived) == 20 }, "\(watcher.errorsSoFar())")
        watcher.terminate()
        if !(await Self.eventually(within: 60) { watcher.hasEnded }) { watcher.kill() }
        let outcome = try await watcher.wait()
        #expect(!outcome.signaled && outcome.status == 0, "\(outcome.status): \(outcome.errors)")
        Self.expectOneOutage(in: outcome.errors)
    }

    /// Expects one outage in a watcher's log: one line when it started, then one when it ended, in the
    /// store's words, and none in the watcher's own.
    static func expectOneOutage(in errors: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let lines = errors.split(separator: "\n")
        let started = lines.indices.filter { lines[$0].contains(" warning cannot reach the database; retrying until it is back ") }
        let ended = lines.indices.filter { lines[$0].contains(" info the database is reached again ") }
        #expect(started.count == 1 && ended.count == 1, "\(errors)", sourceLocation: sourceLocation)
        #expect((started.first ?? .max) < (ended.first ?? .min), "\(errors)", sourceLocation: sourceLocation)
        #expect(!lines.contains { $0.contains("the database cannot be reached") || $0.contains("the database answers again") },
                "\(errors)", sourceLocation: sourceLocation)
    }
}
#endif
