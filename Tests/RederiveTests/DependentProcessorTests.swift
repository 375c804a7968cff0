import Foundation
import GRDB
import Rederive
import RederiveSQLite
import RederiveTestSupport
import Synchronization
import Testing

/// Processors that derive from other processors' values: registration, order, cascades, upstream
/// failures, and runs that never read a payload.
@Suite("Dependent processors", .timeLimit(.minutes(5)))
struct DependentProcessorTests {
    typealias P = Processor<Sample>

    // MARK: Registration

    @Test func registrationRejectsACycleAndNamesIt() throws {
        // A cycle needs a processor built against another one of the same name.
        let earlierB = P.integer("b", version: 1) { $0.values.count }
        let a = P.integer("a", version: 1, from: earlierB.integer) { ($0 ?? 0) + 1 }
        let b = P.integer("b", version: 1, from: a.integer) { ($0 ?? 0) + 1 }
        let c = P.integer("c", version: 1, from: b.integer) { $0 }
        let pipeline = Pipeline(name: "items", table: "items", decoding: Sample.self, processors: [c, a, b])
        let error = #expect(throws: RederiveError.self) { try Registry([pipeline]) }
        #expect(error?.code == .invalidRegistration)
        #expect(error?.message.contains("in a cycle, each reading the next: b → a → b") == true, "\(error?.message ?? "")")
    }

    @Test func registrationRejectsInputsFromAnotherPipelineOrOfAnotherType() throws {
        let total = P.real("total", version: 1) { $0.values.reduce(0, +) }
        let label = P.text("label", version: 1) { $0.label }
        let stats = P(name: "stats", version: 1, columns: [.integer("count"), .text("upper")]) { sample in
            [.integer(sample.values.count), .text(sample.label.uppercased())]
        }
        func problem(_ processors: [P]) -> String? {
            do {
                _ = try Registry([Pipeline(name: "items", table: "items", decoding: Sample.self, processors: processors)])
                return nil
            } catch {
                return error.message
            }
        }
        // `total` belongs to another pipeline: this one does not have it.
        let elsewhere = P.text("size", version: 1, from: total.real) { _ in "x" }
        #expect(problem([label, elsewhere])?.contains("reads processor \"total\", which is not a processor of pipeline \"items\"") == true)
        // A TEXT column read as a number.
        let misread = P.real("length", version: 1, from: label.real) { $0 }
        #expect(problem([label, misread])?.contains("reads column \"label\" of processor \"label\" as REAL, but it is TEXT") == true)
        // A processor of two columns read as if it had one.
        let unnamed = P.integer("n", version: 1, from: stats.integer) { $0 }
        #expect(problem([stats, unnamed])?.contains("a processor of several columns is read by naming one") == true)
        let named = P.integer("n", version: 1, from: stats.integer("count")) { $0 }
        #expect(problem([stats, named]) == nil)
        #expect(problem([total, label, stats, named]) == nil)
    }

    // MARK: Deriving

    @Test func dependentsRunAfterTheirInputsWhateverTheOrderListed() async throws {
        try await withTemporaryDatabase { path in
            let test = DependentPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords([("k1", sampleJSON("s1", [5, 9])), ("k2", sampleJSON("s2", [1, 2]))], into: path)
            let summary = try await run(test.pipeline, at: path, Runner.Configuration(parallelism: 1, batchSize: 10))
            #expect(summary.counts == RunCounts(changed: 2))
            #expect(test.probe.derivationOrder == ["total:s1", "size", "summary", "total:s2", "size", "summary"])
            let inspect = Inspection(path: path)
            #expect(try inspect.value("size", key: "k1", as: String.self) == "big")
            #expect(try inspect.value("summary", key: "k1", as: String.self) == "S1:big")
            #expect(try inspect.value("summary", key: "k2", as: String.self) == "S2:small")
            // The dependents' stamps say what they derived from; the others' say nothing.
            let stamps = try appConnection(path).read { db in
                try Row.fetchAll(db, sql: "SELECT processor, input_versions, inputs_digest FROM rederive_stamps WHERE record_id = 1 ORDER BY processor")
            }
            // In processor name order: size, stats, summary, total.
            #expect(stamps.map { $0["input_versions"] as String? } == ["total@1", nil, "size@1,stats@1", nil])
            #expect(stamps.map { ($0["inputs_digest"] as Int64?) != nil } == [true, false, true, false])
        }
    }

    @Test func anInputVersionThatChangesValuesCascadesToItsDependents() async throws {
        try await withTemporaryDatabase { path in
            var test = DependentPipeline()
            try await prepare(test.pipeline, at: path)
            // Totals 3, 6, 9, 12: doubling them makes two more records big.
            try insertRecords((1...4).map { ("k\($0)", sampleJSON("s\($0)", [Double($0), Double(2 * $0)])) }, into: path)
            _ = try await run(test.pipeline, at: path)
            #expect(test.log.total("size") == 4)
            #expect(test.log.total("summary") == 4)

            test.totalVersion = 2
            test.totalScale = 2
            let second = try await run(test.pipeline, at: path)
            #expect(second.pending == 4)
            #expect(second.counts == RunCounts(changed: 4))
            // Every total changed, so every size ran again; only the two sizes that changed ran summary.
            #expect(test.log.total("size") == 8)
            #expect(test.log.total("summary") == 6)
            let inspect = Inspection(path: path)
            #expect(try inspect.value("summary", key: "k3", as: String.self) == "S3:big")
            #expect(try inspect.value("summary", key: "k1", as: String.self) == "S1:small")
            #expect(try inspect.count("SELECT count(*) FROM rederive_stamps WHERE processor = 'size' AND input_versions = 'total@2'") == 4)
            let third = try await run(test.pipeline, at: path)
            #expect(third.pending == 0)
        }
    }

    @Test func anInputRederivedToEqualValuesLeavesItsDependentsUpToDate() async throws {
        try await withTemporaryDatabase { path in
            var test = DependentPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(6), into: path)
            let first = try await run(test.pipeline, at: path)
            test.totalVersion = 2
            let second = try await run(test.pipeline, at: path)
            #expect(second.counts == RunCounts(unchanged: 6))
            #expect(test.log.total("total") == 12)
            #expect(test.log.total("size") == 6)
            #expect(test.log.total("summary") == 6)
            // The dependents' stamps are the first run's, and current.
            let inspect = Inspection(path: path)
            #expect(try inspect.count(
                "SELECT count(*) FROM rederive_stamps WHERE processor IN ('size', 'summary') AND current = 1 AND run_id = ?", [first.runID]
            ) == 12)
            let status = try await SQLiteStore(path: path).status(of: test.pipeline)
            #expect(status.allSatisfy { $0.upToDate == 6 && $0.stale == 0 })
        }
    }

    @Test func anInputFailureFailsItsDependentsUpstreamUntilTheInputSucceeds() async throws {
        try await withTemporaryDatabase { path in
            var test = DependentPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords([("ok", sampleJSON("fine", [20])), ("bad", sampleJSON("explode", [1]))], into: path)
            let first = try await run(test.pipeline, at: path)
            #expect(first.counts == RunCounts(changed: 1, failed: 1))
            let store = try SQLiteStore(path: path)
            let failures = try await store.failures(of: test.pipeline, filter: FailureFilter())
            #expect(failures.map { "\($0.key ?? ""):\($0.processor):\($0.kind.rawValue)" }.sorted() == [
                "bad:size:upstream", "bad:summary:upstream", "bad:total:processor",
            ])
            #expect(failures.first { $0.processor == "size" }?.message == "input processor total failed for this record")
            #expect(failures.first { $0.processor == "summary" }?.message == "input processor size failed for this record")
            // stats does not read total, so it derived.
            #expect(try Inspection(path: path).value("label_upper", key: "bad", as: String.self) == "EXPLODE")
            // Nothing is retried until the input changes.
            #expect(try await run(test.pipeline, at: path).pending == 0)

            test.totalVersion = 2
            test.totalFixed = true
            let fixed = try await run(test.pipeline, at: path)
            #expect(fixed.counts.failed == 0)
            #expect(try await store.failures(of: test.pipeline, filter: FailureFilter()).isEmpty)
            #expect(try Inspection(path: path).value("summary", key: "bad", as: String.self) == "EXPLODE:small")
            #expect(try await store.status(of: test.pipeline).allSatisfy { $0.upToDate == 2 && $0.failed == 0 })
        }
    }

    @Test func bumpingOnlyADependentNeverReadsOrDecodesAPayload() async throws {
        try await withTemporaryDatabase { path in
            var test = DependentPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(30), into: path)
            _ = try await run(test.pipeline, at: path)
            #expect(test.probe.decodedCount == 30)

            test.sizeVersion = 2
            let count = PayloadCount()
            let store = count.counting(try SQLiteStore(path: path))
            let summary = try await Runner(
                store: store, pipelines: [test.pipeline], configuration: Runner.Configuration(parallelism: 3, batchSize: 4)
            ).run()
            #expect(summary.pending == 30)
            #expect(summary.counts == RunCounts(unchanged: 30))
            #expect(count.handedOut == 30)
            #expect(count.payloadsRead == 0)
            #expect(test.probe.decodedCount == 30)
            #expect(test.log.total("size") == 60)
            #expect(test.log.total("total") == 30)
        }
    }

    @Test func aDependentThatHangsHoldsUpOnlyItsWorkerAndTheRunStopsWhenCancelled() async throws {
        try await withTemporaryDatabase { path in
            var test = DependentPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(30), into: path)
            _ = try await run(test.pipeline, at: path)

            // Record k3 (total 3 + 1 + 2) loops in `size` until the test ends, like a processor stuck
            // in an endless loop; no payload is read, so every record is derived on the workers' threads.
            let release = Mutex(false)
            defer { release.withLock { $0 = true } }
            test.sizeVersion = 2
            test.onSize = { total in
                if total == 6 {
                    while !release.withLock({ $0 }) { Thread.sleep(forTimeInterval: 0.005) }
                }
            }
            let hungID = try Inspection(path: path).count("SELECT id FROM items WHERE key = 'k3'")
            let summary = try await runCancelledOnceTheHangIsReported(test.pipeline, at: path, othersDone: 29, claimSize: 4)

            #expect(summary.status == .interrupted)
            #expect(summary.counts == RunCounts(unchanged: 29))
            #expect(summary.overdue.map(\.recordID) == [Int64(hungID)])
            #expect(try Inspection(path: path).count("SELECT count(*) FROM rederive_stamps WHERE processor = 'size' AND version = 2 AND current = 1") == 29)
        }
    }

    @Test func aCancelledDependentsOnlyRunResumesWithNothingLostOrRepeated() async throws {
        try await withTemporaryDatabase { path in
            var test = DependentPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(400), into: path)
            _ = try await run(test.pipeline, at: path)
            #expect(test.log.total("size") == 400)

            test.sizeVersion = 2
            let first = try await runCancelledAfterFirstCommit(test.pipeline, on: try SQLiteStore(path: path))
            #expect(first.status == .interrupted)
            #expect(first.counts.total < 400)
            #expect(first.counts.total > 0)

            let second = try await run(test.pipeline, at: path)
            #expect(second.status == .completed)
            #expect(first.counts.total + second.counts.total == 400)
            // Every record's size derived exactly once more: what was derived before the cancel was committed.
            #expect(test.log.total("size") == 800)
            #expect(try Inspection(path: path).count("SELECT count(*) FROM rederive_stamps WHERE processor = 'size' AND version = 2 AND current = 1") == 400)
        }
    }

    @Test func aDryRunCountsTheCascade() async throws {
        try await withTemporaryDatabase { path in
            var test = DependentPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords((1...4).map { ("k\($0)", sampleJSON("s\($0)", [Double($0), Double(2 * $0)])) }, into: path)
            _ = try await run(test.pipeline, at: path)
            test.totalVersion = 2
            test.totalScale = 2
            let report = try await DryRun(store: try SQLiteStore(path: path), pipelines: [test.pipeline]).run()
            #expect(report.pending == 4)
            #expect(report.cascades.map { "\($0.processor):\($0.records)" } == ["size:4", "summary:2"])
            #expect(report.columns.first { $0.column == "size" }?.changed == 2)
            // Nothing was written.
            #expect(try await run(test.pipeline, at: path).counts == RunCounts(changed: 4))
        }
    }

    @Test func selectingAProcessorBringsItsInputsAndDependentsAlong() {
        let pipeline = DependentPipeline().pipeline
        let names = { (selection: [String]) in
            RunPlan(pipeline: pipeline, selection: selection.compactMap { name in pipeline.processors.firstIndex { $0.name == name } })
                .processors.map(\.name).sorted()
        }
        #expect(names(["total"]) == ["size", "stats", "summary", "total"])
        #expect(names(["stats"]) == ["size", "stats", "summary", "total"])
        #expect(names(["size"]) == ["size", "stats", "summary", "total"])
        #expect(pipeline.dependents(of: "total") == ["size", "summary"])
        #expect(pipeline.inputs(of: "summary") == ["size", "stats"])
    }
}

/// Counts the records claimed for a runner, and how many of them came with a payload.
final class PayloadCount: Sendable {
    private let counts = Mutex((handedOut: 0, payloadsRead: 0))

    var handedOut: Int { counts.withLock { $0.handedOut } }
    var payloadsRead: Int { counts.withLock { $0.payloadsRead } }

    /// A store that counts here what `base` hands out.
    func counting(_ base: SQLiteStore) -> InterceptingStore {
        var store = InterceptingStore(base: base)
        store.afterClaim = { records in
            self.counts.withLock {
                $0.handedOut += records.count
                $0.payloadsRead += records.count { if case .payload = $0.input { true } else { false } }
            }
        }
        return store
    }
}
