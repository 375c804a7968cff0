import Foundation
import GRDB
import Rederive
import RederiveSQLite
import RederiveTestSupport
import Testing

/// Doubles `total` from version 2 on, so that a version bump changes stored values.
func doublingPipeline(version: Int) -> Pipeline {
    let total = Processor<Sample>(name: "total", version: version, columns: [.real("total")]) { sample in
        let sum = sample.values.reduce(0, +)
        return [.real(version >= 2 ? sum * 2 : sum)]
    }
    let stats = Processor<Sample>(name: "stats", version: 1, columns: [.integer("value_count", default: 0), .text("label_upper")]) { sample in
        [.integer(Int64(sample.values.count)), .text(sample.label.uppercased())]
    }
    return Pipeline(name: "items", table: "items", keyColumn: "key", decoding: Sample.self, processors: [total, stats])
}

@Suite("History and rollback", .timeLimit(.minutes(5)))
struct RollbackTests {
    @Test func rollingBackARunAfterAVersionBumpRestoresTheOldValuesAndStamps() async throws {
        try await withTemporaryDatabase { path in
            let v1 = doublingPipeline(version: 1)
            try await prepare(v1, at: path)
            try insertRecords(samples(6), into: path)
            _ = try await run(v1, at: path)
            let inspect = Inspection(path: path)
            #expect(try inspect.value("total", key: "k4", as: Double.self) == 7)

            let bump = try await run(doublingPipeline(version: 2), at: path)
            #expect(bump.counts.changed == 6)
            #expect(try inspect.value("total", key: "k4", as: Double.self) == 14)
            // Only the processor whose values changed kept anything.
            #expect(try inspect.count("SELECT count(*) FROM rederive_replaced_stamps WHERE run_id = ?", [bump.runID]) == 6)
            #expect(try inspect.count("SELECT count(*) FROM rederive_replaced_stamps WHERE processor = 'stats' AND run_id = ?", [bump.runID]) == 0)

            // The app replaces one payload after the bump: that record must not be rolled back.
            try replacePayload(key: "k2", json: sampleJSON("s2", [50]), in: path)

            let store = try SQLiteStore(path: path)
            let report = try await store.rollback(run: bump.runID, pipelines: [v1])
            #expect(report.restored.count == 5)
            #expect(report.skipped.map(\.key) == ["k2"])
            #expect(report.skipped.first?.reason?.contains("payload changed") == true)
            #expect(try inspect.value("total", key: "k4", as: Double.self) == 7)
            #expect(try inspect.value("total", key: "k2", as: Double.self) == 10)
            #expect(try inspect.count("SELECT count(*) FROM rederive_stamps WHERE processor = 'total' AND version = 1 AND current = 1") == 5)

            // With the old logic back, only the changed payload is stale.
            let again = try await run(v1, at: path)
            #expect(again.pending == 1)
            #expect(try inspect.value("total", key: "k2", as: Double.self) == 50)
        }
    }

    @Test func aRunDerivedAgainLaterIsNotRolledBackOverTheNewerValues() async throws {
        try await withTemporaryDatabase { path in
            try await prepare(doublingPipeline(version: 1), at: path)
            try insertRecords(samples(3), into: path)
            let first = try await run(doublingPipeline(version: 1), at: path)
            _ = try await run(doublingPipeline(version: 2), at: path)
            let report = try await SQLiteStore(path: path).rollback(run: first.runID, pipelines: [doublingPipeline(version: 2)])
            // Run 2 changed `total` again, so only `stats`, which run 1 derived first, goes back to its defaults.
            #expect(report.restored.map(\.processor) == ["stats", "stats", "stats"])
            #expect(report.skipped.map(\.processor) == ["total", "total", "total"])
            #expect(report.skipped.allSatisfy { $0.reason == "run 2 changed it again; roll that run back first" })
            let inspect = Inspection(path: path)
            #expect(try inspect.value("total", key: "k1", as: Double.self) == 8)
            #expect(try inspect.value("value_count", key: "k1", as: Int.self) == 0)
            #expect(try inspect.count("SELECT count(*) FROM rederive_stamps WHERE processor = 'stats'") == 0)
        }
    }

    @Test func aFirstDerivationKeepsNoValuesYetRollsBackToTheDefaults() async throws {
        try await withTemporaryDatabase { path in
            try await prepare(doublingPipeline(version: 1), at: path)
            try insertRecords(samples(5), into: path)
            let first = try await run(doublingPipeline(version: 1), at: path)
            let inspect = Inspection(path: path)
            // Nothing but defaults was replaced: one stamp row per processor and record, no value rows.
            #expect(try inspect.count("SELECT count(*) FROM rederive_replaced_values WHERE run_id = ?", [first.runID]) == 0)
            #expect(try inspect.count("SELECT count(*) FROM rederive_replaced_stamps WHERE run_id = ?", [first.runID]) == 10)
            #expect(try inspect.value("value_count", key: "k1", as: Int.self) == 3)

            let report = try await SQLiteStore(path: path).rollback(run: first.runID, pipelines: [doublingPipeline(version: 1)])
            #expect(report.restored.count == 10)
            #expect(try inspect.value("value_count", key: "k1", as: Int.self) == 0)
            #expect(try inspect.value("total", key: "k1", as: Double.self) == nil)
            #expect(try inspect.value("label_upper", key: "k1", as: String.self) == nil)
            #expect(try inspect.count("SELECT count(*) FROM rederive_stamps") == 0)
        }
    }

    @Test func replacedValuesArePrunedWithOldRuns() async throws {
        try await withTemporaryDatabase { path in
            try await prepare(doublingPipeline(version: 1), at: path)
            try insertRecords(samples(4), into: path)
            for version in 1...4 {
                let store = try SQLiteStore(path: path, replacedValuesRunLimit: 2)
                _ = try await Runner(store: store, pipelines: [doublingPipeline(version: version)]).run()
                try appExecute(path, "UPDATE items_derived SET total = -1")
            }
            let runs = try Inspection(path: path).count("SELECT count(DISTINCT run_id) FROM rederive_replaced_stamps")
            #expect(runs == 2)
            #expect(try Inspection(path: path).count("SELECT min(run_id) FROM rederive_replaced_stamps") == 3)
        }
    }

    @Test func rollingBackAnUnknownRunNamesIt() async throws {
        try await withTemporaryDatabase { path in
            try await prepare(doublingPipeline(version: 1), at: path)
            let error = await #expect(throws: RederiveError.self) {
                try await SQLiteStore(path: path).rollback(run: 42, pipelines: [doublingPipeline(version: 1)])
            }
            #expect(error?.message.contains("no run 42") == true)
        }
    }
}
