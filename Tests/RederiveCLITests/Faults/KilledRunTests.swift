import Foundation
import GRDB
import Testing

/// A run killed with SIGKILL never records its end; the next run finds it still `running` with its
/// process gone, and records it as `interrupted`, with the counts of what it committed.
@Suite("Killed run", .serialized, .timeLimit(.minutes(5)))
struct KilledRunTests {
    static let program = TrapFixtureCorpus.program

    @Test func theNextRunRecordsAKilledRunAsInterruptedWithWhatItCommitted() async throws {
        // 400 records, every tenth of which does not decode.
        let payloads = (0..<400).map { index in
            index % 10 == 3 ? "{not json" : TrapFixtureCorpus.payload(label: "good-\(index)", index: index)
        }
        try await TrapFixtureCorpus.with(payloads) { directory, database in
            try await Self.killMidRun(database, in: directory)

            // What the killed run committed, as the database holds it.
            let queue = try DatabaseQueue(path: database)
            let (runID, status, failed, handled) = try await queue.read { db in
                let runID = try Int64.fetchOne(db, sql: "SELECT max(id) FROM rederive_runs") ?? 0
                return (
                    runID,
                    try String.fetchOne(db, sql: "SELECT status FROM rederive_runs WHERE id = ?", arguments: [runID]),
                    try Int.fetchOne(db, sql: "SELECT count(DISTINCT record_id) FROM rederive_failures WHERE run_id = ?", arguments: [runID]) ?? 0,
                    try Int.fetchOne(db, sql: """
                        SELECT count(*) FROM (
                            SELECT record_id FROM rederive_stamps WHERE run_id = ?1
                            UNION SELECT record_id FROM rederive_failures WHERE run_id = ?1)
                        """, arguments: [runID]) ?? 0
                )
            }
            #expect(status == "running")
            #expect(handled > 0 && handled < 400, "\(handled) records handled")
            #expect(failed > 0, "the killed run committed no failure")

            let next = try await RederiveProcess.run(["run", "--db", database, "--progress", "none"], in: directory, program: Self.program)
            #expect(!next.signaled && next.status == 3, "\(next.status): \(next.errors)")

            let history = try await RederiveProcess.run(["history", "--db", database, "--format", "json"], in: directory, program: Self.program)
            let runs = try #require(try JSONSerialization.jsonObject(with: Data(history.output.utf8)) as? [[String: Any]], "\(history.output)")
            let first = try #require(runs.first { ($0["id"] as? Int).map(Int64.init) == runID }, "\(runs)")
            #expect(first["status"] as? String == "interrupted", "\(first)")
            #expect(first["derived"] as? Int == handled - failed, "\(first)")
            #expect(first["failed"] as? Int == failed, "\(first)")
            #expect(first["unchanged"] as? Int == 0, "\(first)")
            #expect(first["endedAt"] is String, "\(first)")
            let second = try #require(runs.first, "\(runs)")
            #expect(second["status"] as? String == "completed", "\(second)")
            #expect((second["derived"] as? Int ?? 0) + (second["failed"] as? Int ?? 0) == 400 - handled, "\(second)")
        }
    }

    @Test func statusAndHistoryShowAKilledRunInterruptedAtOnceWithoutWriting() async throws {
        let payloads = (0..<400).map { TrapFixtureCorpus.payload(label: "good-\($0)", index: $0) }
        try await TrapFixtureCorpus.with(payloads) { directory, database in
            try await Self.killMidRun(database, in: directory)
            let derived = try await DatabaseQueue(path: database).read { db in
                try Int.fetchOne(db, sql: "SELECT count(DISTINCT record_id) FROM rederive_stamps WHERE run_id = (SELECT max(id) FROM rederive_runs)") ?? 0
            }
            #expect(derived > 0 && derived < 400, "\(derived) records derived")

            // Its lease has not expired, but its process is gone: no later run is needed to say so.
            let history = try await RederiveProcess.run(["history", "--db", database, "--format", "json"], in: directory, program: Self.program)
            #expect(history.status == 0, "\(history.errors)")
            let runs = try #require(try JSONSerialization.jsonObject(with: Data(history.output.utf8)) as? [[String: Any]], "\(history.output)")
            let shown = try #require(runs.first, "\(runs)")
            #expect(shown["status"] as? String == "interrupted", "\(shown)")
            #expect(shown["derived"] as? Int == derived, "\(shown)")
            #expect(shown["endedAt"] is String, "\(shown)")

            let status = try await RederiveProcess.run(["status", "--db", database, "--format", "json"], in: directory, program: Self.program)
            #expect(status.status == 0, "\(status.errors)")
            let control = try #require(
                (try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])?["control"] as? [String: Any], "\(status.output)"
            )
            #expect((control["runs"] as? [Any])?.isEmpty == true, "\(control)")
            let table = try await RederiveProcess.run(["status", "--db", database], in: directory, program: Self.program)
            #expect(!table.output.contains("running"), "\(table.output)")

            // Read-only commands wrote nothing: the database still records the run as running.
            let recorded = try await DatabaseQueue(path: database).read { db in
                try String.fetchOne(db, sql: "SELECT status FROM rederive_runs ORDER BY id DESC LIMIT 1")
            }
            #expect(recorded == "running")
        }
    }

    /// Starts `run` on `database`, slowed down to 20 s for the whole corpus so that it is killed mid-run
    /// after a few commits even when this process is slow to read its progress on a loaded machine, and
    /// kills it with SIGKILL.
    static func killMidRun(_ database: String, in directory: URL) async throws {
        let killed = try RederiveProcess.start(
            ["run", "--db", database, "--max-rate", "20", "--batch-size", "10", "--progress", "json"],
            in: directory, program: program
        )
        _ = try await killed.waitForOutput { $0.components(separatedBy: "\"event\":\"progress\"").count > 4 }
        killed.kill()
        let outcome = try await killed.wait()
        #expect(outcome.signaled && outcome.status == SIGKILL, "\(outcome.status): \(outcome.errors)")
    }
}
