import Foundation
import GRDB
import Testing

/// `run --isolate` with a processor that traps on some records (the `rederive-trap-fixture`
/// executable): without isolation the trap ends the run; with it, each trapping record is a `crash`
/// failure naming the signal, its worker is replaced, and every other record derives.
@Suite("run --isolate", .serialized, .timeLimit(.minutes(5)))
struct IsolateTests {
    static let program = "rederive-trap-fixture"
    static let traps = ["trap-unwrap", "trap-index", "trap-precondition"]

    func withCorpus(_ body: (URL, String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("rederive-isolate-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("items.sqlite").path
        // A first run, with nothing to derive and --create, creates the database and the pipeline's table.
        let created = try await RederiveProcess.run(["run", "--create", "--db", database, "--progress", "none"], in: directory, program: Self.program)
        #expect(created.status == 0, "\(created.errors)")
        let queue = try DatabaseQueue(path: database)
        try await queue.write { db in
            for index in 0..<40 {
                // Traps sit among good records, in different batches.
                let label = index % 13 == 5 ? Self.traps[index / 13] : "good-\(index)"
                let json = "{\"label\":\"\(label)\",\"values\":[\(index),1,2]}"
                try db.execute(sql: "INSERT INTO items (key, payload) VALUES (?, ?)", arguments: ["k\(index)", json])
            }
        }
        try await body(directory, database)
    }

    @Test func withoutIsolationATrapEndsTheRun() async throws {
        try await withCorpus { directory, database in
            let run = try await RederiveProcess.run(["run", "--db", database, "--progress", "none"], in: directory, program: Self.program)
            #expect(run.signaled, "status \(run.status): \(run.errors.suffix(300))")
        }
    }

    @Test func withIsolationEachTrapIsACrashFailureAndTheRunGoesOn() async throws {
        try await withCorpus { directory, database in
            let run = try await RederiveProcess.run(
                ["run", "--db", database, "--isolate", "--parallel", "2", "--batch-size", "8", "--progress", "none"],
                in: directory, program: Self.program
            )
            #expect(!run.signaled && run.status == 3, "status \(run.status): \(run.errors.suffix(300))")
            #expect(run.output.contains("37 derived, 0 unchanged, 3 failed"), "\(run.output)")

            let report = try await RederiveProcess.run(["failures", "--db", database, "--format", "json"], in: directory, program: Self.program)
            let failures = try #require(try JSONSerialization.jsonObject(with: Data(report.output.utf8)) as? [[String: Any]])
            #expect(failures.count == Self.traps.count * 2)
            #expect(Set(failures.compactMap { $0["key"] as? String }) == ["k5", "k18", "k31"])
            // Each names the signal and the runtime's reason for the trap.
            let reasons = ["k5": "Unexpectedly found nil", "k18": "Index out of range", "k31": "values must be empty"]
            for failure in failures {
                #expect(failure["kind"] as? String == "crash")
                let message = failure["message"] as? String ?? ""
                let reason = reasons[failure["key"] as? String ?? ""] ?? "?"
                #expect(message.contains("ended with signal") && message.contains(reason) && !message.contains("\n"), "\(message)")
            }

            let totals = try DatabaseQueue(path: database).read { db in
                try Row.fetchAll(db, sql: "SELECT i.key, d.total, d.value_count FROM items i JOIN items_derived d ON d.id = i.id WHERE d.total IS NOT NULL")
            }
            #expect(totals.count == 37)
            for row in totals {
                let key: String = row[0]
                let index = Double(key.dropFirst()) ?? -1
                #expect((row[1] as Double) == index + 3 && (row[2] as Int) == 3, "\(key)")
            }
            let again = try await RederiveProcess.run(["run", "--db", database, "--isolate", "--progress", "none"], in: directory, program: Self.program)
            #expect(again.status == 0 && again.output.contains("0 derived, 0 unchanged, 0 failed"), "\(again.output)")
        }
    }
}
