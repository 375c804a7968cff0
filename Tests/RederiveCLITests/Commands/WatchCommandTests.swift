import Foundation
import GRDB
import Testing

/// `rederive watch` as a process: it derives what other programs write, and stops cleanly on SIGTERM.
@Suite("rederive watch", .serialized, .timeLimit(.minutes(5)))
struct WatchCommandTests {
    static let program = TrapFixtureCorpus.program

    /// Polls `condition` every `interval` until it holds; false after `seconds`, a bound that only
    /// keeps a broken build from hanging the suite.
    static func eventually(
        within seconds: Double = 120, every interval: Duration = .milliseconds(20), _ condition: () throws -> Bool
    ) async rethrows -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if try condition() { return true }
            try? await Task.sleep(for: interval)
        }
        return try condition()
    }

    /// Counts with a connection of its own that waits for the watcher's write lock, as an app's would.
    static func count(_ database: String, _ sql: String) throws -> Int {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        return try DatabaseQueue(path: database, configuration: configuration).read { db in try Int.fetchOne(db, sql: sql) ?? 0 }
    }

    /// Runs `python3 -c script database`: another program, with its own SQLite library.
    static func python(_ script: String, _ database: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, database]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "python3 failed")
    }

    @Test func recordsAnotherProcessWritesAreDerivedWithoutACommand() async throws {
        try await TrapFixtureCorpus.with([]) { directory, database in
            let watcher = try RederiveProcess.start(["watch", "--db", database, "--parallel", "2"], in: directory, program: Self.program)
            defer { watcher.kill() }
            try Self.python("""
                import sqlite3, sys
                db = sqlite3.connect(sys.argv[1], timeout=10)
                with db:
                    for i in range(50):
                        db.execute("INSERT INTO items (key, payload) VALUES (?, ?)", (f"p{i}", '{"label":"py","values":[%d,1]}' % i))
                """, database)
            #expect(try await Self.eventually {
                try Self.count(database, "SELECT count(*) FROM items_derived WHERE total IS NOT NULL") == 50
            }, "\(watcher.errorsSoFar())")
            // Another program replaces a payload: the record is derived again from the new one.
            try Self.python("""
                import sqlite3, sys
                db = sqlite3.connect(sys.argv[1], timeout=10)
                with db:
                    db.execute("UPDATE items SET payload = ? WHERE key = 'p7'", ('{"label":"py","values":[100,200]}',))
                """, database)
            #expect(try await Self.eventually {
                try Self.count(database, "SELECT count(*) FROM items i JOIN items_derived d ON d.id = i.id WHERE i.key = 'p7' AND d.total = 300") == 1
            }, "\(watcher.errorsSoFar())")
            watcher.terminate()
            let outcome = try await watcher.wait()
            #expect(!outcome.signaled && outcome.status == 0, "\(outcome.status): \(outcome.errors)")
            #expect(try Self.count(database, "SELECT count(*) FROM rederive_leases") == 0)
            #expect(try Self.count(database, "SELECT count(*) FROM rederive_runs WHERE status = 'running'") == 0)
            #expect(try Self.count(database, "SELECT sum(derived) FROM rederive_runs") == 51)
        }
    }

    @Test func sigtermMidBacklogCommitsWhatIsInFlightAndReleasesTheLease() async throws {
        let payloads = (0..<600).map { TrapFixtureCorpus.payload(label: "slow", index: $0) }
        try await TrapFixtureCorpus.with(payloads) { directory, database in
            let watcher = try RederiveProcess.start(
                ["watch", "--db", database, "--parallel", "2", "--batch-size", "10", "--drain-timeout", "20"],
                in: directory, program: Self.program
            )
            defer { watcher.kill() }
            #expect(try await Self.eventually {
                try Self.count(database, "SELECT count(*) FROM rederive_stamps WHERE processor = 'total'") >= 40
            }, "\(watcher.errorsSoFar())")
            watcher.terminate()
            let outcome = try await watcher.wait()
            #expect(!outcome.signaled && outcome.status == 0, "\(outcome.status): \(outcome.errors)")
            // The lease is free at once: the next process need not wait for it to expire.
            #expect(try Self.count(database, "SELECT count(*) FROM rederive_leases") == 0)
            let stamped = try Self.count(database, "SELECT count(*) FROM rederive_stamps WHERE processor = 'total' AND current = 1")
            #expect(stamped > 0 && stamped < 600, "\(stamped) records derived: the watcher was stopped mid-backlog")
            // Nothing half-done: every record derived has both processors' values and stamps, and the
            // values its payload gives; the others have neither.
            #expect(try Self.count(database, "SELECT count(*) FROM rederive_stamps WHERE processor = 'count' AND current = 1") == stamped)
            #expect(try Self.count(database, """
                SELECT count(*) FROM items i JOIN items_derived d ON d.id = i.id
                WHERE d.total = CAST(substr(i.key, 2) AS REAL) + 3 AND d.value_count = 3
                """) == stamped)
            // The run it recorded ended as interrupted, and counts what was committed.
            #expect(try Self.count(database, "SELECT count(*) FROM rederive_runs WHERE status = 'interrupted'") == 1)
            #expect(try Self.count(database, "SELECT sum(derived) FROM rederive_runs") == stamped)
            // The next run derives exactly the rest.
            let next = try await RederiveProcess.run(["run", "--db", database, "--progress", "none"], in: directory, program: Self.program)
            #expect(next.status == 0, "\(next.errors)")
            #expect(try Self.count(database, "SELECT sum(derived) FROM rederive_runs") == 600)
        }
    }
}
