import Foundation
import GRDB
import Rederive
import RederiveCodec
import RederiveSQLite
import RederiveTestSupport
import Testing

@Suite("Per-record failure isolation")
struct FailureIsolationTests {
    /// A corrupt stream, invalid JSON and a throwing processor among good records.
    func brokenCorpus(_ path: String) throws {
        try insertRecords(samples(10), into: path)
        try insertRecords([("explode", sampleJSON("explode", [1]))], into: path)
        try insertRecords([("invalid", "{\"label\": ")], format: .plain, into: path)
        let truncated = Array(PayloadCodec.encode(Array(sampleJSON("cut", [1, 2, 3]).utf8)).dropLast(5))
        try appExecute(path, "INSERT INTO items (key, payload) VALUES ('truncated', ?)", [Data(truncated)])
    }

    @Test func eachKindOfFailureIsRecordedAndTheRestOfTheBatchCommits() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try brokenCorpus(path)
            let summary = try await run(test.pipeline, at: path, Runner.Configuration(parallelism: 3, batchSize: 100))
            #expect(summary.counts == RunCounts(changed: 10, failed: 3))

            let failures = try await SQLiteStore(path: path).failures(of: test.pipeline, filter: FailureFilter())
            let byKey = Dictionary(grouping: failures, by: { $0.key ?? "" })
            #expect(byKey["explode"]?.map(\.processor) == ["total"])
            #expect(byKey["explode"]?.first?.kind == .processor)
            #expect(byKey["explode"]?.first?.message == "refusing to total an exploding sample")
            #expect(byKey["invalid"]?.map(\.kind) == [.decoding, .decoding])
            #expect(byKey["truncated"]?.map(\.kind) == [.decompression, .decompression])
            #expect(byKey["truncated"]?.first?.message.contains("truncated") == true)
            #expect(failures.allSatisfy { $0.runID == summary.runID && $0.version == 1 })

            // The exploding record's other processor succeeded.
            let inspect = Inspection(path: path)
            #expect(try inspect.value("label_upper", key: "explode", as: String.self) == "EXPLODE")
            #expect(try inspect.value("total", key: "explode", as: Double.self) == nil)
            let status = try await SQLiteStore(path: path).status(of: test.pipeline)
            #expect(status.map(\.failed) == [3, 2])
            #expect(status.map(\.stale) == [0, 0], "failed records are not stale")
        }
    }

    @Test func aFailedRecordKeepsItsPreviousValuesAndStaysStale() async throws {
        try await withTemporaryDatabase { path in
            var test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords([("r", sampleJSON("r", [1, 2]))], into: path)
            _ = try await run(test.pipeline, at: path)
            try replacePayload(key: "r", json: sampleJSON("explode", [5]), in: path)
            test.totalVersion = 1
            let summary = try await run(test.pipeline, at: path)
            #expect(summary.counts == RunCounts(failed: 1))
            #expect(try Inspection(path: path).value("total", key: "r", as: Double.self) == 3)
            let status = try await SQLiteStore(path: path).status(of: test.pipeline)
            #expect(status.first { $0.name == "total" }?.upToDate == 0)
        }
    }

    @Test func failuresAreRetriedOnlyWhenAskedOrWhenPayloadOrVersionChanges() async throws {
        try await withTemporaryDatabase { path in
            var test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(3) + [("boom", sampleJSON("explode", [1]))], into: path)
            _ = try await run(test.pipeline, at: path)
            #expect(test.log.count("total", "explode") == 1)

            let again = try await run(test.pipeline, at: path)
            #expect(again.pending == 0)
            #expect(test.log.count("total", "explode") == 1)

            let retried = try await run(test.pipeline, at: path, Runner.Configuration(retryFailed: true))
            #expect(retried.counts == RunCounts(failed: 1))
            #expect(test.log.count("total", "explode") == 2)

            test.totalVersion = 2
            _ = try await run(test.pipeline, at: path)
            #expect(test.log.count("total", "explode") == 3)

            // A fixed payload derives and clears the failure.
            try replacePayload(key: "boom", json: sampleJSON("fixed", [2, 2]), in: path)
            let fixed = try await run(test.pipeline, at: path)
            #expect(fixed.counts.changed == 1)
            #expect(try await SQLiteStore(path: path).failures(of: test.pipeline, filter: FailureFilter()).isEmpty)
            #expect(try Inspection(path: path).value("total", key: "boom", as: Double.self) == 4)
        }
    }

    @Test func aBombIsAFailureOfItsRecord() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            let padding = String(repeating: " ", count: 4 << 20)
            try insertRecords(samples(2) + [("bomb", "{\"label\":\"b\",\"values\":[]" + padding + "}")], into: path)
            let summary = try await run(test.pipeline, at: path, Runner.Configuration(maximumPayloadSize: 1 << 20))
            #expect(summary.counts == RunCounts(changed: 2, failed: 1))
            let failures = try await SQLiteStore(path: path).failures(of: test.pipeline, filter: FailureFilter())
            #expect(failures.allSatisfy { $0.key == "bomb" && $0.kind == .decompression })
        }
    }

    @Test func aProcessorReturningAValueThatDoesNotFitItsColumnFailsThatRecord() async throws {
        try await withTemporaryDatabase { path in
            let wrong = Processor<Sample>(name: "wrong", version: 1, columns: [.integer("n")]) { _ in [.text("x")] }
            let pipeline = Pipeline(name: "items", table: "items", keyColumn: "key", decoding: Sample.self, processors: [wrong])
            try await prepare(pipeline, at: path)
            try insertRecords(samples(1), into: path)
            _ = try await run(pipeline, at: path)
            let messages = try await SQLiteStore(path: path).failures(of: pipeline, filter: FailureFilter()).map(\.message)
            #expect(messages == ["returned x for INTEGER column n"])
        }
    }

    /// A wrong number of values is the processor's mistake, not the records': one error of the run,
    /// of the dry run and of verify, and a store refuses to commit such a result.
    @Test func aProcessorReturningTheWrongNumberOfValuesStopsTheRunOnceAndCommitsNothingOfIt() async throws {
        try await withTemporaryDatabase { path in
            let short = Processor<Sample>(name: "short", version: 1, columns: [.integer("a"), .integer("b")]) { _ in [.integer(1)] }
            let pipeline = Pipeline(name: "items", table: "items", keyColumn: "key", decoding: Sample.self, processors: [short])
            try await prepare(pipeline, at: path)
            try insertRecords(samples(50), into: path)
            let isValueCountError: @Sendable (any Error) -> Bool = { error in
                guard let error = error as? RederiveError, error.code == .invalidRegistration else { return false }
                return error.message.contains("processor short of pipeline items returned 1 value for its 2 columns (a, b)")
            }
            await #expect(performing: { _ = try await run(pipeline, at: path) }, throws: isValueCountError)
            let store = try SQLiteStore(path: path)
            #expect(try await store.failures(of: pipeline, filter: FailureFilter()).isEmpty)
            #expect(try Inspection(path: path).count("SELECT count(*) FROM rederive_stamps") == 0)
            #expect(try await store.runs(limit: 1).first?.status == .failed)

            await #expect(performing: {
                _ = try await DryRun(store: store, pipelines: [pipeline]).run()
            }, throws: isValueCountError)
            let result = RecordResult(recordID: 1, generation: 1, payloadDigest: 0, outcomes: [(0, .derived([.integer(1)]))])
            await #expect(performing: {
                _ = try await store.commit([result], plan: RunPlan(pipeline: pipeline), runID: 1, lease: nil)
            }, throws: isValueCountError)
        }
    }
}
