import Foundation
import GRDB
import Rederive
import RederiveSQLite
import Synchronization
import Testing

/// Wraps a store and tracks how many records are between claiming and committing, and the largest
/// claim's payload bytes.
final class InFlightStore: RecordStore {
    let base: SQLiteStore
    private let inFlight = Mutex<(now: Int, peak: Int, reads: Int, claimBytes: Int)>((0, 0, 0, 0))

    init(_ base: SQLiteStore) { self.base = base }

    /// The most payload bytes one claim held.
    var peakClaimBytes: Int { inFlight.withLock { $0.claimBytes } }

    var peak: Int { inFlight.withLock { $0.peak } }
    /// How many times pending records were listed.
    var reads: Int { inFlight.withLock { $0.reads } }

    func prepare(_ pipeline: Pipeline) async throws { try await base.prepare(pipeline) }
    func startRun(processors: [ProcessorVersion]) async throws -> Int64 { try await base.startRun(processors: processors) }
    func finishRun(_ runID: Int64, status: RunStatus, counts: RunCounts) async throws {
        try await base.finishRun(runID, status: status, counts: counts)
    }
    func pendingCount(_ plan: RunPlan) async throws -> Int { try await base.pendingCount(plan) }
    func pendingRecords(_ plan: RunPlan, after cursor: Int64?, limit: Int, byteLimit: Int) async throws -> [PendingRecord] {
        let records = try await base.pendingRecords(plan, after: cursor, limit: limit, byteLimit: byteLimit)
        inFlight.withLock { $0.now += records.count; $0.peak = max($0.peak, $0.now); $0.reads += 1 }
        return records
    }
    func acquireLease(for worker: WorkerIdentity, duration: Duration) async throws -> LeaseAcquisition {
        try await base.acquireLease(for: worker, duration: duration)
    }
    func renewLease(_ lease: WorkerLease) async throws { try await base.renewLease(lease) }
    func releaseLease(_ lease: WorkerLease) async throws { try await base.releaseLease(lease) }
    func claim(_ plan: RunPlan, limit: Int, byteLimit: Int, lease: WorkerLease) async throws -> [PendingRecord] {
        let records = try await base.claim(plan, limit: limit, byteLimit: byteLimit, lease: lease)
        let bytes = records.reduce(0) { $0 + ($1.payload?.count ?? 0) }
        inFlight.withLock {
            $0.now += records.count; $0.peak = max($0.peak, $0.now); $0.reads += 1; $0.claimBytes = max($0.claimBytes, bytes)
        }
        return records
    }
    func commit(_ results: [RecordResult], plan: RunPlan, runID: Int64, lease: WorkerLease?) async throws -> RunCounts {
        let counts = try await base.commit(results, plan: plan, runID: runID, lease: lease)
        inFlight.withLock { $0.now -= results.count }
        return counts
    }
    func status(of pipeline: Pipeline) async throws -> [ProcessorStatus] { try await base.status(of: pipeline) }
    func failures(of pipeline: Pipeline, filter: FailureFilter) async throws -> [RecordFailure] {
        try await base.failures(of: pipeline, filter: filter)
    }
    func invalidate(_ pipeline: Pipeline, processors: [String]?, keys: [String]?) async throws -> Int {
        try await base.invalidate(pipeline, processors: processors, keys: keys)
    }
    func runs(limit: Int?) async throws -> [RunHistoryEntry] { try await base.runs(limit: limit) }
}

@Suite("Live database", .timeLimit(.minutes(5)))
struct LiveDatabaseTests {
    @Test func aPayloadReplacedDuringTheRunIsNotStoredWithStaleValues() async throws {
        try await withTemporaryDatabase { path in
            var test = TestPipeline()
            // While rederive derives "s7" from its first payload, the app replaces that payload.
            test.onTotal = { sample in
                if sample.label == "s7" {
                    try? replacePayload(key: "k7", json: sampleJSON("s7-new", [100]), in: path)
                }
            }
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(20), into: path)
            let summary = try await run(test.pipeline, at: path)
            #expect(summary.counts == RunCounts(derived: 19, skipped: 1))
            let inspect = Inspection(path: path)
            #expect(try inspect.value("total", key: "k7", as: Double.self) == nil)

            let next = try await run(test.pipeline, at: path)
            #expect(next.counts == RunCounts(derived: 1))
            #expect(try inspect.value("total", key: "k7", as: Double.self) == 100)
            #expect(try inspect.value("label_upper", key: "k7", as: String.self) == "S7-NEW")
        }
    }

    @Test func recordsInFlightStayBoundedWhateverTheTableSize() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(3_000), into: path)
            let store = InFlightStore(try SQLiteStore(path: path))
            var configuration = Runner.Configuration(parallelism: 4, batchSize: 50)
            configuration.claimSize = 10
            let summary = try await Runner(store: store, pipelines: [test.pipeline], configuration: configuration).run()
            #expect(summary.counts.derived == 3_000)
            // Each worker holds one claim; the channel holds two batches of results and the writer one.
            #expect(store.peak <= 4 * 10 + 3 * 50)
        }
    }

    @Test func aRunWithNothingStaleDoesNotScanTheRecords() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(50), into: path)
            _ = try await run(test.pipeline, at: path)
            let store = InFlightStore(try SQLiteStore(path: path))
            let summary = try await Runner(store: store, pipelines: [test.pipeline]).run()
            #expect(summary.pending == 0)
            #expect(store.reads == 0)
        }
    }

    @Test func batchesEndEarlyWhenTheirPayloadsReachTheByteLimit() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(200), into: path)
            let payloadSize = try Inspection(path: path).count("SELECT max(length(payload)) FROM items")
            let store = InFlightStore(try SQLiteStore(path: path))
            var configuration = Runner.Configuration(parallelism: 2, batchSize: 100, batchByteLimit: payloadSize * 10)
            configuration.claimSize = 100
            let summary = try await Runner(store: store, pipelines: [test.pipeline], configuration: configuration).run()
            #expect(summary.counts.derived == 200)
            // The two workers share the byte limit: a claim ends once it holds five payloads' worth, so it
            // holds at most six payloads.
            #expect(store.peakClaimBytes <= 6 * payloadSize)
            #expect(store.reads >= 200 / 6)
        }
    }
}
