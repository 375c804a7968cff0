import Foundation
import GRDB
import Testing

/// `rederive pause`, `resume` and `cancel` from another process act on a SQLite run in progress: the
/// run holds within one heartbeat with what it claimed committed, goes on with its counts, or ends as
/// cancelled, and `rollback` undoes a cancelled run.
@Suite("Pause, resume and cancel from another process", .serialized, .timeLimit(.minutes(5)))
struct RunControlCommandTests {
    @Test func aRunPausedFromAnotherProcessHoldsThenFinishesAsAnUninterruptedRunWould() async throws {
        try await Self.withCorpus { directory, database in
            let baseline = directory.appendingPathComponent("baseline.sqlite").path
            try FileManager.default.copyItem(atPath: database, toPath: baseline)
            let uninterrupted = try await RederiveProcess.run(["run", "--db", baseline, "--progress", "none"], in: directory)
            #expect(uninterrupted.status == 3, "\(uninterrupted.errors)")

            let run = try RederiveProcess.start(Self.slowRun(database), in: directory)
            _ = try await run.waitForOutput { $0.contains("\"event\":\"progress\"") }
            let pause = try await RederiveProcess.run(["pause", "--db", database], in: directory)
            #expect(pause.status == 0 && pause.output.contains("paused roomscan"), "\(pause.output) \(pause.errors)")
            let held = try await run.waitForOutput { $0.contains("\"event\":\"held\"") }
            #expect(held.contains("\"hold\":\"paused\""), "\(held)")

            // Paused: the run waits with what it claimed committed, and commits nothing more.
            let runID = try Self.newestRun(database)
            let committed = try Self.committed(runID, database)
            #expect(committed > 0 && committed < Self.records, "\(committed)")
            let status = try await Self.json(["status", "--db", database, "--format", "json"], in: directory)
            let control = try #require(status["control"] as? [String: Any], "\(status)")
            let runs = try #require(control["runs"] as? [[String: Any]], "\(control)")
            #expect(runs.first?["state"] as? String == "paused", "\(control)")
            #expect((control["pauses"] as? [[String: Any]])?.first?["pipeline"] as? String == "roomscan", "\(control)")
            let history = try await Self.jsonList(["history", "--db", database, "--format", "json"], in: directory)
            #expect(history.first?["state"] as? String == "paused" && history.first?["status"] as? String == "running", "\(history)")
            try await Task.sleep(for: .seconds(2))
            #expect(try Self.committed(runID, database) == committed)
            #expect(!run.hasEnded)

            let resume = try await RederiveProcess.run(["resume", "--db", database], in: directory)
            #expect(resume.status == 0 && resume.output.contains("resumed roomscan"), "\(resume.output) \(resume.errors)")
            let outcome = try await run.wait()
            #expect(outcome.status == 3, "\(outcome.errors)")
            #expect(outcome.output.contains("\"event\":\"resumed\""), "\(outcome.output)")
            let after = try await Self.jsonList(["history", "--db", database, "--format", "json"], in: directory)
            #expect(after.count == 1, "\(after)")
            let total = ["derived", "unchanged", "failed"].compactMap { after.first?[$0] as? Int }.reduce(0, +)
            #expect(total == Self.records, "\(after)")
            #expect(after.first?["status"] as? String == "completed", "\(after)")
            #expect(try Self.derivedValues(database) == Self.derivedValues(baseline))
        }
    }

    @Test func aCancelledRunEndsWithWhatItCommittedAndRollbackRestoresTheValuesBeforeIt() async throws {
        try await Self.withCorpus { directory, database in
            let before = try Self.derivedValues(database)
            let run = try RederiveProcess.start(Self.slowRun(database), in: directory)
            _ = try await run.waitForOutput { $0.contains("\"event\":\"progress\"") }
            let cancel = try await RederiveProcess.run(["cancel", "--db", database], in: directory)
            #expect(cancel.status == 0 && cancel.output.contains("cancelling run"), "\(cancel.output) \(cancel.errors)")
            let outcome = try await run.wait()
            #expect(outcome.status == 5, "\(outcome.output) \(outcome.errors)")

            let history = try await Self.jsonList(["history", "--db", database, "--format", "json"], in: directory)
            let cancelled = try #require(history.first, "\(history)")
            #expect(cancelled["status"] as? String == "cancelled", "\(cancelled)")
            let runID = try #require(cancelled["id"] as? Int)
            let committed = ["derived", "unchanged", "failed"].compactMap { cancelled[$0] as? Int }.reduce(0, +)
            #expect(committed > 0 && committed < Self.records, "\(cancelled)")
            #expect(try Self.committed(Int64(runID), database) == committed)
            #expect(try Self.derivedValues(database) != before)

            let nothing = try await RederiveProcess.run(["cancel", "--db", database], in: directory)
            #expect(nothing.status == 1 && nothing.errors.contains("nothing to cancel"), "\(nothing.errors)")

            let rollback = try await RederiveProcess.run(["rollback", "--db", database, String(runID)], in: directory)
            #expect(rollback.status == 0, "\(rollback.output) \(rollback.errors)")
            let restored = try Self.derivedValues(database)
            let differing = restored.filter { before[$0.key] != $0.value }.sorted { $0.key < $1.key }.prefix(3)
            #expect(differing.isEmpty, "\(differing.map { "\($0.key): \(before[$0.key] ?? "none") -> \($0.value)" })")
        }
    }

    @Test func aPauseWhileQueryOnAFlagTableHoldsTheRunAndLetsItGoAsTheFlagFlips() async throws {
        try await Self.withCorpus { directory, database in
            let flags = try Self.connection(database)
            try await flags.write { db in
                try db.execute(sql: "CREATE TABLE maintenance (on_hold INTEGER NOT NULL); INSERT INTO maintenance VALUES (1)")
            }
            func flag(_ value: Int) async throws {
                try await flags.write { db in try db.execute(sql: "UPDATE maintenance SET on_hold = ?", arguments: [value]) }
            }
            let run = try RederiveProcess.start(
                Self.slowRun(database) + ["--pause-while", "SELECT on_hold FROM maintenance", "--pause-while-interval", "0.2", "--log-level", "notice"],
                in: directory
            )
            // Held from the start: it claims nothing while the flag is up.
            _ = try await run.waitForOutput { $0.contains("\"event\":\"held\"") }
            let runID = try Self.newestRun(database)
            let status = try await Self.json(["status", "--db", database, "--format", "json"], in: directory)
            let runs = (status["control"] as? [String: Any])?["runs"] as? [[String: Any]]
            #expect(runs?.first?["state"] as? String == "throttled (pause-while: its query returns true)", "\(status)")
            try await Task.sleep(for: .seconds(1))
            #expect(try Self.committed(runID, database) == 0)

            try await flag(0)
            _ = try await run.waitForOutput { $0.contains("\"event\":\"progress\"") }
            try await flag(1)
            _ = try await run.waitForOutput { $0.components(separatedBy: "\"event\":\"held\"").count > 2 }
            let committed = try Self.committed(runID, database)
            #expect(committed > 0 && committed < Self.records, "\(committed)")
            try await Task.sleep(for: .seconds(1))
            #expect(try Self.committed(runID, database) == committed)

            try await flag(0)
            let outcome = try await run.wait()
            #expect(outcome.status == 3, "\(outcome.errors)")
            #expect(try Self.committed(runID, database) == Self.records)
            // Each hold's start and end is logged once.
            let log = outcome.errors.split(separator: "\n")
            #expect(log.filter { $0.contains("throttle holds") }.count == 2, "\(outcome.errors)")
            #expect(log.filter { $0.contains("throttle cleared") }.count == 2, "\(outcome.errors)")
        }
    }

    @Test func aPauseWhileQueryThatIsNotABooleanStopsTheRunBeforeItStarts() async throws {
        try await Self.withCorpus { directory, database in
            let outcome = try await RederiveProcess.run(
                ["run", "--db", database, "--pause-while", "SELECT 'yes', 2", "--progress", "none"], in: directory
            )
            #expect(outcome.status == 1 && outcome.errors.contains("must return one row of one boolean"), "\(outcome.errors)")
            #expect(try Self.newestRun(database) == 0)
        }
    }

    static let records = 240

    /// A run slowed to 20 records a second (12 s in all, so that a `pause` or `cancel` started on a
    /// loaded machine lands mid-run), with a heartbeat every second, that reports JSON progress.
    static func slowRun(_ database: String) -> [String] {
        ["run", "--db", database, "--max-rate", "20", "--batch-size", "10", "--lease-duration", "3", "--progress", "json", "--parallel", "2"]
    }

    /// Runs `body` with a generated corpus of ``records`` records, a tenth of them broken.
    static func withCorpus(_ body: (URL, String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rederive-control-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("rooms.sqlite").path
        let generated = try await RederiveProcess.run(
            ["generate", "--db", database, "--count", String(records), "--corrupt", "0.1"], in: directory
        )
        #expect(generated.status == 0, "\(generated.errors)")
        try await body(directory, database)
    }

    static func json(_ arguments: [String], in directory: URL) async throws -> [String: Any] {
        let outcome = try await RederiveProcess.run(arguments, in: directory)
        return try #require(try JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [String: Any], "\(outcome.output) \(outcome.errors)")
    }

    static func jsonList(_ arguments: [String], in directory: URL) async throws -> [[String: Any]] {
        let outcome = try await RederiveProcess.run(arguments, in: directory)
        return try #require(try JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [[String: Any]], "\(outcome.output) \(outcome.errors)")
    }

    static func connection(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    static func newestRun(_ database: String) throws -> Int64 {
        try connection(database).read { db in try Int64.fetchOne(db, sql: "SELECT max(id) FROM rederive_runs") ?? 0 }
    }

    /// The records run `runID` committed, as its stamps and failures say.
    static func committed(_ runID: Int64, _ database: String) throws -> Int {
        try connection(database).read { db in
            try Int.fetchOne(db, sql: """
                SELECT count(*) FROM (
                    SELECT record_id FROM rederive_stamps WHERE run_id = ?1 UNION SELECT record_id FROM rederive_failures WHERE run_id = ?1)
                """, arguments: [runID]) ?? 0
        }
    }

    /// Every record's derived columns, and its stamps, by key; a record without a companion row holds
    /// the defaults (NULL).
    static func derivedValues(_ database: String) throws -> [String: String] {
        try connection(database).read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: """
                SELECT s.scan_id, d.*, (SELECT group_concat(processor || ' v' || version, ',') FROM rederive_stamps t WHERE t.record_id = s.id)
                FROM room_scans s LEFT JOIN room_scans_derived d ON d.id = s.id
                """).map { row in
                    // A companion row of defaults holds what no row holds: its `id` is left out.
                    let values = zip(row.columnNames, row.databaseValues).dropFirst().filter { $0.0 != "id" }.map(\.1.description)
                    return (row[0] as String, values.joined(separator: "|"))
                })
        }
    }
}
