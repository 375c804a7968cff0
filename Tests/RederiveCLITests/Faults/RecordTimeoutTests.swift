import Foundation
import GRDB
import Testing

/// `run --timeout` with a processor that never returns on one record (the `rederive-trap-fixture`
/// executable's label `hang`).
@Suite("run --timeout", .serialized, .timeLimit(.minutes(5)))
struct RecordTimeoutTests {
    static let program = TrapFixtureCorpus.program

    /// A database of 30 good records and one that hangs, `k7`.
    func withCorpus(_ body: (URL, String) async throws -> Void) async throws {
        let payloads = (0..<31).map { index in TrapFixtureCorpus.payload(label: index == 7 ? "hang" : "good-\(index)", index: index) }
        try await TrapFixtureCorpus.with(payloads, body)
    }

    @Test func withIsolationTheHungWorkerIsStoppedAndTheRecordFailsWithATimeout() async throws {
        try await withCorpus { directory, database in
            let run = try await RederiveProcess.run(
                ["run", "--db", database, "--isolate", "--parallel", "2", "--timeout", "1", "--progress", "none"],
                in: directory, program: Self.program
            )
            #expect(!run.signaled && run.status == 3, "status \(run.status): \(run.errors.suffix(300))")
            #expect(run.output.contains("30 derived, 0 unchanged, 1 failed"), "\(run.output)")
            let report = try await RederiveProcess.run(["failures", "--db", database, "--format", "json"], in: directory, program: Self.program)
            let failures = try #require(try JSONSerialization.jsonObject(with: Data(report.output.utf8)) as? [[String: Any]])
            #expect(Set(failures.compactMap { $0["key"] as? String }) == ["k7"])
            #expect(failures.allSatisfy { $0["kind"] as? String == "timeout" })
            #expect(failures.allSatisfy { ($0["message"] as? String ?? "").contains("longer than the 1 s timeout") }, "\(failures)")
        }
    }

    @Test func withoutIsolationTheHungRecordIsNamedAndCtrlCEndsTheRun() async throws {
        try await withCorpus { directory, database in
            let hungID = try await DatabaseQueue(path: database).read { db in
                try Int.fetchOne(db, sql: "SELECT id FROM items WHERE key = 'k7'")
            }
            let run = try RederiveProcess.start(
                ["run", "--db", database, "--parallel", "2", "--timeout", "0.5", "--progress", "plain"],
                in: directory, program: Self.program
            )
            // The hang shows while the run goes on: the progress names the record.
            var named = false
            for _ in 0..<1_000 where !named {
                named = run.errorsSoFar().contains("overdue: record \(hungID ?? -1) (")
                if !named { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(named, "\(run.errorsSoFar())")
            run.interrupt()
            let outcome = try await run.wait()
            #expect(!outcome.signaled && outcome.status == 130, "status \(outcome.status): \(outcome.errors.suffix(300))")
            #expect(outcome.output.contains("30 derived"), "\(outcome.output)")
            #expect(outcome.errors.contains("still deriving when the run ended, past the 0.5 s timeout: record \(hungID ?? -1)"), "\(outcome.errors)")
        }
    }
}
