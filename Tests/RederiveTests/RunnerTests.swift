import Foundation
import GRDB
import Rederive
import RederiveCodec
import RederiveSQLite
import RederiveTestSupport
import Testing

@Suite("Runner")
struct RunnerTests {
    @Test func derivesEveryRecordIntoTheCompanionTable() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(20), into: path)
            let summary = try await run(test.pipeline, at: path)
            #expect(summary.status == .completed)
            #expect(summary.counts == RunCounts(changed: 20))
            let inspect = Inspection(path: path)
            #expect(try inspect.value("total", key: "k5", as: Double.self) == 8)
            #expect(try inspect.value("value_count", key: "k5", as: Int.self) == 3)
            #expect(try inspect.value("label_upper", key: "k5", as: String.self) == "S5")
            #expect(try inspect.count("SELECT count(*) FROM items_derived") == 20)
            #expect(try inspect.count("SELECT count(*) FROM rederive_stamps WHERE current = 1") == 40)
        }
    }

    @Test func derivesIntoInlineColumnsAndAddsTheMissingOnesWithTheirDefaults() async throws {
        try await withTemporaryDatabase { path in
            // An app schema that already holds one derived column and predates the other processor.
            try appExecute(path, "CREATE TABLE items (id INTEGER PRIMARY KEY, key TEXT NOT NULL, payload BLOB NOT NULL, total REAL)")
            try insertRecords(samples(5), into: path)
            let test = TestPipeline(layout: .inline)
            try await prepare(test.pipeline, at: path)
            let inspect = Inspection(path: path)
            // Existing rows got the new columns with their declared defaults.
            #expect(try inspect.value("value_count", key: "k1", table: "items", as: Int.self) == 0)
            #expect(try inspect.count("SELECT count(*) FROM items WHERE label_upper IS NULL") == 5)

            let summary = try await run(test.pipeline, at: path)
            #expect(summary.counts == RunCounts(changed: 5))
            #expect(try inspect.value("total", key: "k2", table: "items", as: Double.self) == 5)
            #expect(try inspect.value("label_upper", key: "k2", table: "items", as: String.self) == "S2")
            #expect(try inspect.count("SELECT count(*) FROM sqlite_master WHERE name = 'items_derived'") == 0)
        }
    }

    @Test func aSecondRunFindsNothingStale() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(10), into: path)
            _ = try await run(test.pipeline, at: path)
            let second = try await run(test.pipeline, at: path)
            #expect(second.pending == 0)
            #expect(second.counts.total == 0)
            #expect(test.log.total("total") == 10)
        }
    }

    @Test func aVersionBumpRederivesOnlyThatProcessorsColumns() async throws {
        try await withTemporaryDatabase { path in
            var test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(12), into: path)
            _ = try await run(test.pipeline, at: path)
            let inspect = Inspection(path: path)
            // Tamper with a stats column: if stats ran again it would be rewritten.
            try appExecute(path, "UPDATE items_derived SET label_upper = 'kept'")

            test.statsVersion = 1
            test.totalVersion = 2
            let summary = try await run(test.pipeline, at: path)
            #expect(summary.pending == 12)
            #expect(summary.counts == RunCounts(unchanged: 12))
            #expect(test.log.total("total") == 24)
            #expect(test.log.total("stats") == 12)
            #expect(try inspect.count("SELECT count(*) FROM items_derived WHERE label_upper = 'kept'") == 12)
            #expect(try inspect.count("SELECT count(*) FROM rederive_stamps WHERE processor = 'total' AND version = 2") == 12)
        }
    }

    @Test(arguments: [0, 3])
    func anyOtherVersionIsStaleOlderOrNewer(storedVersion: Int) async throws {
        try await withTemporaryDatabase { path in
            var test = TestPipeline()
            test.totalVersion = storedVersion
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(3), into: path)
            _ = try await run(test.pipeline, at: path)
            test.totalVersion = 1
            let status = try await SQLiteStore(path: path).status(of: test.pipeline)
            #expect(status.first { $0.name == "total" }?.stale == 3)
            #expect(status.first { $0.name == "stats" }?.stale == 0)
            let summary = try await run(test.pipeline, at: path)
            #expect(summary.pending == 3)
        }
    }

    @Test func aChangedPayloadIsStaleAndAnIdenticalRewriteIsNot() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(4), into: path)
            _ = try await run(test.pipeline, at: path)

            try replacePayload(key: "k1", json: sampleJSON("s1", [10, 20]), in: path)
            // The same bytes written again change nothing.
            let same = Data(PayloadCodec.encode(Array(sampleJSON("s2", [2, 1, 2]).utf8)))
            try appExecute(path, "UPDATE items SET payload = ? WHERE key = 'k2'", [same])
            let summary = try await run(test.pipeline, at: path)
            #expect(summary.pending == 1)
            #expect(summary.counts == RunCounts(changed: 1))
            #expect(try Inspection(path: path).value("total", key: "k1", as: Double.self) == 30)
        }
    }

    @Test func rowsInsertedByAnotherProgramAreDerivedOnTheNextRun() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(3), into: path)
            _ = try await run(test.pipeline, at: path)
            try insertRecords([("new", sampleJSON("fresh", [4, 4]))], into: path)
            let summary = try await run(test.pipeline, at: path)
            #expect(summary.counts == RunCounts(changed: 1))
            #expect(try Inspection(path: path).value("total", key: "new", as: Double.self) == 8)
        }
    }

    @Test(arguments: PayloadFormat.allCases)
    func payloadsWrittenInEveryFormatDerive(format: PayloadFormat) async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(6), format: format, into: path)
            let summary = try await run(test.pipeline, at: path)
            #expect(summary.counts == RunCounts(changed: 6))
            #expect(try Inspection(path: path).value("total", key: "k4", as: Double.self) == 7)
        }
    }

    @Test func deletedRecordsLeaveNoDerivedRowsStampsOrFailures() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(5) + [("bad", "{not json")], into: path)
            _ = try await run(test.pipeline, at: path)
            try appExecute(path, "DELETE FROM items WHERE key IN ('k1', 'bad')")
            let inspect = Inspection(path: path)
            #expect(try inspect.count("SELECT count(*) FROM items_derived") == 4)
            #expect(try inspect.count("SELECT count(*) FROM rederive_stamps") == 8)
            #expect(try inspect.count("SELECT count(*) FROM rederive_failures") == 0)
            #expect(try inspect.count("SELECT count(*) FROM rederive_records") == 4)
        }
    }

    @Test func aLimitedRunTakesOnlyThatManyRecords() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(30), into: path)
            let first = try await run(test.pipeline, at: path, Runner.Configuration(parallelism: 2, batchSize: 4, limit: 10))
            #expect(first.counts.total == 10)
            let rest = try await run(test.pipeline, at: path)
            #expect(rest.counts.total == 20)
            #expect(test.log.all.values.allSatisfy { $0 == 1 })
        }
    }

    @Test func invalidatingRecordsRederivesThemWithoutAVersionBump() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(5), into: path)
            _ = try await run(test.pipeline, at: path)
            let store = try SQLiteStore(path: path)
            let marked = try await store.invalidate(test.pipeline, processors: ["stats"], keys: ["k0", "k3"])
            #expect(marked == 2)
            let summary = try await run(test.pipeline, at: path)
            #expect(summary.counts == RunCounts(unchanged: 2))
            #expect(test.log.count("stats", "s3") == 2)
            #expect(test.log.count("total", "s3") == 1)
            await #expect(throws: RederiveError.self) {
                _ = try await store.invalidate(test.pipeline, processors: nil, keys: ["missing"])
            }
        }
    }

    @Test func progressReportsEveryCommitAndTheEnd() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(20), into: path)
            let progress = InMemoryProgress()
            _ = try await run(test.pipeline, at: path, Runner.Configuration(parallelism: 2, batchSize: 5), progress: progress)
            let events = progress.events
            #expect(events.first == .started(runID: 1, total: 20))
            let done = events.compactMap { event -> Int? in
                if case .advanced(let progress) = event { progress.done } else { nil }
            }
            // A commit holds a batch at most, fewer when the writer's interval passes first.
            #expect(done.last == 20)
            #expect(zip([0] + done, done).allSatisfy { previous, next in next > previous && next - previous <= 5 }, "\(done)")
            guard case .finished(let summary) = events.last else {
                Issue.record("the last event is not the end of the run")
                return
            }
            #expect(summary.counts.changed == 20)
            let history = try await SQLiteStore(path: path).runs(limit: nil)
            #expect(history.map(\.status) == [.completed])
            #expect(history.first?.counts.changed == 20)
            #expect(history.first?.processors.map(\.name) == ["total", "stats"])
        }
    }

    @Test func aPacedRunNeverGetsAheadOfItsRate() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(60), into: path)
            let progress = InMemoryProgress()
            let configuration = Runner.Configuration(parallelism: 2, batchSize: 500, maximumRate: 30)
            let summary = try await run(test.pipeline, at: path, configuration, progress: progress)
            #expect(summary.counts.changed == 60)
            let advances = progress.events.compactMap { event -> ProgressEvent.Progress? in
                if case .advanced(let progress) = event { progress } else { nil }
            }
            #expect(advances.last?.done == 60)
            // Workers claim when the pace allows: at most one second's worth (30) ahead of 30 per second.
            for advance in advances {
                #expect(Double(advance.done) <= 30 * (advance.elapsed.secondsValue + 1), "\(advance.done) after \(advance.elapsed)")
            }
            #expect(summary.elapsed >= .seconds(1))
        }
    }

    @Test func unknownProcessorNamesAreFatal() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            await #expect(throws: RederiveError.self) {
                _ = try await run(test.pipeline, at: path, Runner.Configuration(processors: ["nope"]))
            }
        }
    }

    @Test func aRunOverTwoPipelinesDerivesTheRecordsOfBoth() async throws {
        try await withTemporaryDatabase { path in
            let items = TestPipeline().pipeline
            let others = Pipeline(
                name: "others", table: "others", keyColumn: "key", decoding: Sample.self,
                processors: [Processor<Sample>.real("sum", version: 1) { sample in sample.values.reduce(0, +) }]
            )
            try appExecute(path, "CREATE TABLE others (id INTEGER PRIMARY KEY, key TEXT NOT NULL, payload BLOB NOT NULL)")
            try await prepare(items, at: path)
            try await prepare(others, at: path)
            try insertRecords(samples(7), into: path)
            try insertRecords(samples(5), into: path, table: "others")
            let configuration = Runner.Configuration(parallelism: 2)
            let summary = try await Runner(store: try SQLiteStore(path: path), pipelines: [items, others], configuration: configuration).run()
            #expect(summary.status == .completed)
            #expect(summary.counts == RunCounts(changed: 12))
            let inspect = Inspection(path: path)
            #expect(try inspect.count("SELECT count(*) FROM others_derived WHERE sum IS NOT NULL") == 5)
            #expect(try inspect.count("SELECT count(*) FROM rederive_stamps WHERE pipeline = 'others' AND current = 1") == 5)
        }
    }

    @Test func namesWithQuotesInThemAreQuotedAsSQLiteReadsThem() async throws {
        try await withTemporaryDatabase { path in
            let quoted = Pipeline(
                name: "quoted", table: #"my "scans""#, keyColumn: "key", payloadColumn: #"raw "json""#,
                decoding: Sample.self,
                processors: [Processor<Sample>.real(#"sum "all""#, version: 1) { sample in sample.values.reduce(0, +) }]
            )
            try await prepare(quoted, at: path)
            try appExecute(path, #"INSERT INTO "my ""scans""" (key, "raw ""json""") VALUES ('a', '{"label":"a","values":[1,2]}')"#)
            let summary = try await run(quoted, at: path)
            #expect(summary.counts == RunCounts(changed: 1))
            #expect(try Inspection(path: path).count(#"SELECT count(*) FROM "my ""scans""_derived" WHERE "sum ""all""" = 3"#) == 1)
        }
    }
}
