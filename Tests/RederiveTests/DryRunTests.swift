import GRDB
import Rederive
import RederiveSQLite
import RederiveTestSupport
import Testing

@Suite("Dry run", .timeLimit(.minutes(5)))
struct DryRunTests {
    @Test func aDryRunReportsWhatWouldChangeAndLeavesTheFilesByteForByteUnchanged() async throws {
        try await withTemporaryDatabase { path in
            var test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(20), into: path)
            _ = try await run(test.pipeline, at: path)
            try insertRecords([("bomb", sampleJSON("explode", [1]))], into: path)
            // The app stays connected, so its last write stays in the WAL, which must not change either.
            let app = try appConnection(path)
            try await app.write { db in
                try db.execute(sql: "UPDATE items_derived SET total = total + 1 WHERE id <= 5")
            }
            let before = try DatabaseFiles(path)
            #expect(before.wal.map { !$0.isEmpty } == true)

            test.totalVersion = 2
            let report = try await DryRun(
                store: try SQLiteStore(path: path), pipelines: [test.pipeline],
                configuration: Runner.Configuration(parallelism: 3, batchSize: 4)
            ).run()

            #expect(try DatabaseFiles(path) == before)
            #expect(report.pending == 21)
            #expect(report.examined == 21)
            let columns = Dictionary(uniqueKeysWithValues: report.columns.map { ($0.column, $0) })
            let total = try #require(columns["total"])
            #expect(total.derived == 20)
            #expect(total.changed == 5)
            #expect(total.differences == NumericSummary(count: 5, minimum: -1, median: -1, maximum: -1))
            #expect(columns["value_count"]?.changed == 1)
            #expect(columns["label_upper"]?.commonChanges == [ValueChange(from: nil, to: .text("EXPLODE"), count: 1)])
            #expect(report.failures.map(\.key) == ["bomb"])
            #expect(report.failures.map(\.processor) == ["total"])
            #expect(test.log.count("total", "s3") == 2)
        }
    }

    @Test func aSampleDerivesOnlyTheFirstRecords() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(30), into: path)
            let report = try await DryRun(store: try SQLiteStore(path: path), pipelines: [test.pipeline], sample: 7).run()
            #expect(report.pending == 30)
            #expect(report.examined == 7)
            #expect(report.columns.first { $0.column == "total" }?.changed == 7)
            #expect(test.log.total("total") == 7)
            #expect(try Inspection(path: path).count("SELECT count(*) FROM rederive_stamps") == 0)
        }
    }

    @Test func aDryRunRefusesADatabaseItWouldHaveToPrepare() async throws {
        try await withTemporaryDatabase { path in
            try appExecute(path, "CREATE TABLE items (id INTEGER PRIMARY KEY, key TEXT NOT NULL, payload BLOB NOT NULL)")
            let before = try Inspection(path: path).count("SELECT count(*) FROM sqlite_master")
            await #expect(throws: RederiveError.self) {
                try await DryRun(store: try SQLiteStore(path: path), pipelines: [TestPipeline().pipeline]).run()
            }
            #expect(try Inspection(path: path).count("SELECT count(*) FROM sqlite_master WHERE name LIKE 'items%'") == 1)
            #expect(before > 0)
        }
    }
}
