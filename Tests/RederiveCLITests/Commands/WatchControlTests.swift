import Foundation
import GRDB
import Testing

/// `rederive pause`, `resume` and `cancel` from another process act on a running `rederive watch` on
/// SQLite. A pause holds the watcher: it commits what it had claimed, reports itself paused, and claims
/// nothing more however long the pause lasts; a resume lets it derive the rest in the same run. A
/// cancel ends the watcher's run, not the watcher: it records the run as cancelled with what it
/// committed, and goes on watching, so the records still stale are derived in a new run unless the
/// watcher is paused, when it opens none until resumed.
@Suite("Pause, resume and cancel a running watcher", .serialized, .timeLimit(.minutes(5)))
struct WatchControlTests {
    static let program = TrapFixtureCorpus.program

    @Test func aPauseHoldsARunningWatcherWithWhatItClaimedCommittedAndAResumeLetsItFinishTheRun() async throws {
        let records = 1_000
        try await TrapFixtureCorpus.with(Self.slowPayloads(records)) { directory, database in
            let before = try Self.newestRun(database)
            let watcher = try RederiveProcess.start(Self.watch(database), in: directory, program: Self.program)
            defer { watcher.kill() }
            #expect(try await WatchCommandTests.eventually { try Self.committed(database) >= 20 }, "\(watcher.errorsSoFar())")

            try await Self.control("pause", database, in: directory)
            // Held once everything it claimed is committed; then nothing more, heartbeat after heartbeat.
            #expect(await WatchCommandTests.eventually { watcher.errorsSoFar().contains("claims held: paused") }, "\(watcher.errorsSoFar())")
            let held = try Self.committed(database)
            #expect(held < records, "the watcher derived every record before the pause reached it")
            #expect(try Self.count(database, "SELECT count(*) FROM rederive_leases WHERE hold = 'paused'") == 1)
            let status = try await RederiveProcess.run(["status", "--db", database, "--format", "json"], in: directory, program: Self.program)
            let control = (try? JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])?["control"] as? [String: Any]
            let runs = control?["runs"] as? [[String: Any]]
            #expect(runs?.count == 1 && runs?.first?["state"] as? String == "paused", "\(status.output) \(status.errors)")
            try await Self.waitForHeartbeats(2, database, watcher: watcher)
            #expect(try Self.committed(database) == held)
            #expect(!watcher.hasEnded, "\(watcher.errorsSoFar())")

            try await Self.control("resume", database, in: directory)
            #expect(try await WatchCommandTests.eventually { try Self.committed(database) == records }, "\(watcher.errorsSoFar())")
            #expect(watcher.errorsSoFar().contains("claims resumed"), "\(watcher.errorsSoFar())")
            watcher.terminate()
            let outcome = try await watcher.wait()
            #expect(!outcome.signaled && outcome.status == 0, "\(outcome.status): \(outcome.errors)")
            // One run, counted once: the resumed watcher went on with the run the pause held.
            #expect(try Self.count(database, "SELECT count(*) FROM rederive_runs WHERE id > \(before)") == 1)
            #expect(try Self.count(database, "SELECT sum(derived) FROM rederive_runs WHERE id > \(before)") == records)
        }
    }

    @Test func aCancelEndsTheWatchersRunAndItWatchesOnHoldingWhilePaused() async throws {
        let records = 1_200
        try await TrapFixtureCorpus.with(Self.slowPayloads(records)) { directory, database in
            let before = try Self.newestRun(database)
            let watcher = try RederiveProcess.start(Self.watch(database), in: directory, program: Self.program)
            defer { watcher.kill() }
            #expect(try await WatchCommandTests.eventually { try Self.committed(database) >= 20 }, "\(watcher.errorsSoFar())")

            // Not paused: the run ends as cancelled with what it committed, and the watcher derives the
            // records still stale in a run of its next look.
            try await Self.control("cancel", database, in: directory)
            #expect(try await WatchCommandTests.eventually {
                try Self.count(database, "SELECT count(*) FROM rederive_runs WHERE id = \(before + 1) AND status = 'cancelled'") == 1
            }, "\(watcher.errorsSoFar())")
            let first = try Self.count(database, "SELECT derived FROM rederive_runs WHERE id = \(before + 1)")
            #expect(first > 0 && first < records, "\(first)")
            #expect(try Self.count(database, "SELECT count(*) FROM rederive_stamps WHERE processor = 'total' AND run_id = \(before + 1)") == first)
            #expect(try await WatchCommandTests.eventually {
                try Self.count(database, "SELECT count(*) FROM rederive_stamps WHERE processor = 'total' AND run_id = \(before + 2)") >= 20
            }, "\(watcher.errorsSoFar())")

            // Paused, then cancelled: the run ends, and the watcher opens none while the pause holds.
            try await Self.control("pause", database, in: directory)
            #expect(await WatchCommandTests.eventually { watcher.errorsSoFar().contains("claims held: paused") }, "\(watcher.errorsSoFar())")
            try await Self.control("cancel", database, in: directory)
            #expect(try await WatchCommandTests.eventually {
                try Self.count(database, "SELECT count(*) FROM rederive_runs WHERE id = \(before + 2) AND status = 'cancelled'") == 1
            }, "\(watcher.errorsSoFar())")
            let stopped = try Self.committed(database)
            #expect(stopped < records, "the watcher derived every record before the pause reached it")
            try await Self.waitForHeartbeats(2, database, watcher: watcher)
            #expect(try Self.committed(database) == stopped)
            #expect(try Self.newestRun(database) == before + 2)
            #expect(!watcher.hasEnded, "\(watcher.errorsSoFar())")

            try await Self.control("resume", database, in: directory)
            #expect(try await WatchCommandTests.eventually { try Self.committed(database) == records }, "\(watcher.errorsSoFar())")
            watcher.terminate()
            let outcome = try await watcher.wait()
            #expect(!outcome.signaled && outcome.status == 0, "\(outcome.status): \(outcome.errors)")
            // Each record committed once, over the two cancelled runs and the one after the resume.
            #expect(try Self.newestRun(database) == before + 3)
            #expect(try Self.count(database, "SELECT sum(derived) FROM rederive_runs WHERE id > \(before)") == records)
            #expect(try Self.count(database, "SELECT count(*) FROM rederive_runs WHERE status = 'cancelled'") == 2)
        }
    }

    @Test func aPauseWhileQueryHoldsTheWatcherUntilTheFlagIsDown() async throws {
        let records = 200
        try await TrapFixtureCorpus.with(Self.slowPayloads(records)) { directory, database in
            try await DatabaseQueue(path: database).write { db in
                try db.execute(sql: "CREATE TABLE maintenance (on_hold INTEGER NOT NULL); INSERT INTO maintenance VALUES (1)")
            }
            let before = try Self.newestRun(database)
            let watcher = try RederiveProcess.start(
                Self.watch(database) + ["--pause-while", "SELECT on_hold FROM maintenance", "--pause-while-interval", "0.2"],
                in: directory, program: Self.program
            )
            defer { watcher.kill() }
            // Held from the start: it opens no run while the flag is up.
            #expect(await WatchCommandTests.eventually {
                watcher.errorsSoFar().contains("claims held: throttled (pause-while: its query returns true)")
            }, "\(watcher.errorsSoFar())")
            try await Self.waitForHeartbeats(2, database, watcher: watcher)
            #expect(try Self.committed(database) == 0)
            #expect(try Self.newestRun(database) == before)

            try await DatabaseQueue(path: database).write { db in try db.execute(sql: "UPDATE maintenance SET on_hold = 0") }
            #expect(try await WatchCommandTests.eventually { try Self.committed(database) == records }, "\(watcher.errorsSoFar())")
            watcher.terminate()
            let outcome = try await watcher.wait()
            #expect(!outcome.signaled && outcome.status == 0, "\(outcome.status): \(outcome.errors)")
            #expect(outcome.errors.contains("throttle holds") && outcome.errors.contains("throttle cleared"), "\(outcome.errors)")
        }
    }

    /// Payloads the fixture takes 20 ms each to derive, so that a pause or cancel lands mid-backlog.
    static func slowPayloads(_ count: Int) -> [String] {
        (0..<count).map { TrapFixtureCorpus.payload(label: "slow", index: $0) }
    }

    /// A watcher with two workers, batches of 10 and a heartbeat every second, that looks for stale
    /// records every second and logs its holds (at notice).
    static func watch(_ database: String) -> [String] {
        ["watch", "--db", database, "--parallel", "2", "--batch-size", "10", "--lease-duration", "3", "--poll-interval", "1"]
    }

    /// Runs `rederive COMMAND --db DATABASE` from another process and expects it to succeed.
    static func control(_ command: String, _ database: String, in directory: URL) async throws {
        let outcome = try await RederiveProcess.run([command, "--db", database], in: directory, program: program)
        #expect(outcome.status == 0, "\(command): \(outcome.output) \(outcome.errors)")
    }

    /// The records the watcher has derived so far, as their current stamps say.
    static func committed(_ database: String) throws -> Int {
        try count(database, "SELECT count(*) FROM rederive_stamps WHERE processor = 'total' AND current = 1")
    }

    /// The id of the newest run recorded: the fixture's database was created by a run.
    static func newestRun(_ database: String) throws -> Int {
        try count(database, "SELECT coalesce(max(id), 0) FROM rederive_runs")
    }

    static func count(_ database: String, _ sql: String) throws -> Int {
        try WatchCommandTests.count(database, sql)
    }

    /// Waits until the watcher has renewed its lease `beats` more times: as long as a held watcher
    /// has had to claim again, had the hold let it.
    static func waitForHeartbeats(_ beats: Int, _ database: String, watcher: RederiveProcess) async throws {
        func renewed() throws -> Double {
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            return try DatabaseQueue(path: database, configuration: configuration).read { db in
                try Double.fetchOne(db, sql: "SELECT max(renewed_at) FROM rederive_leases") ?? 0
            }
        }
        for _ in 0..<beats {
            let last = try renewed()
            #expect(try await WatchCommandTests.eventually { try renewed() > last }, "no heartbeat: \(watcher.errorsSoFar())")
        }
    }
}
