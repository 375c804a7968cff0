import GRDB
import Rederive
import RederiveSQLite
import RederiveTestSupport
import Synchronization
import Testing

/// Tracks how many records are between claiming and committing, and the largest claim's payload bytes,
/// of the runs of ``store``.
final class InFlightTracker: Sendable {
    private let inFlight = Mutex<(now: Int, peak: Int, reads: Int, claimBytes: Int)>((0, 0, 0, 0))
    private let base: SQLiteStore

    init(_ base: SQLiteStore) { self.base = base }

    /// The store to run: it reports here what it hands out and commits.
    var store: InterceptingStore {
        var store = InterceptingStore(base: base)
        store.afterPendingRecords = { records in
            self.inFlight.withLock { $0.now += records.count; $0.peak = max($0.peak, $0.now); $0.reads += 1 }
        }
        store.afterClaim = { records in
            let bytes = records.reduce(0) { $0 + ($1.payload?.count ?? 0) }
            self.inFlight.withLock {
                $0.now += records.count; $0.peak = max($0.peak, $0.now); $0.reads += 1; $0.claimBytes = max($0.claimBytes, bytes)
            }
        }
        store.afterCommit = { results in self.inFlight.withLock { $0.now -= results.count } }
        return store
    }

    /// The most payload bytes one claim held.
    var peakClaimBytes: Int { inFlight.withLock { $0.claimBytes } }
    /// The most records claimed and not yet committed at once.
    var peak: Int { inFlight.withLock { $0.peak } }
    /// How many times pending records were listed or claimed.
    var reads: Int { inFlight.withLock { $0.reads } }
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
            #expect(summary.counts == RunCounts(changed: 19, skipped: 1))
            let inspect = Inspection(path: path)
            #expect(try inspect.value("total", key: "k7", as: Double.self) == nil)

            let next = try await run(test.pipeline, at: path)
            #expect(next.counts == RunCounts(changed: 1))
            #expect(try inspect.value("total", key: "k7", as: Double.self) == 100)
            #expect(try inspect.value("label_upper", key: "k7", as: String.self) == "S7-NEW")
        }
    }

    @Test func recordsInFlightStayBoundedWhateverTheTableSize() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(3_000), into: path)
            let tracker = InFlightTracker(try SQLiteStore(path: path))
            var configuration = Runner.Configuration(parallelism: 4, batchSize: 50)
            configuration.claimSize = 10
            let summary = try await Runner(store: tracker.store, pipelines: [test.pipeline], configuration: configuration).run()
            #expect(summary.counts.changed == 3_000)
            // Each worker holds one claim; the channel holds two batches of results and the writer one.
            #expect(tracker.peak <= 4 * 10 + 3 * 50)
        }
    }

    @Test func aRunWithNothingStaleDoesNotScanTheRecords() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(50), into: path)
            _ = try await run(test.pipeline, at: path)
            let tracker = InFlightTracker(try SQLiteStore(path: path))
            let summary = try await Runner(store: tracker.store, pipelines: [test.pipeline]).run()
            #expect(summary.pending == 0)
            #expect(tracker.reads == 0)
        }
    }

    @Test func batchesEndEarlyWhenTheirPayloadsReachTheByteLimit() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(200), into: path)
            let payloadSize = try Inspection(path: path).count("SELECT max(length(payload)) FROM items")
            let tracker = InFlightTracker(try SQLiteStore(path: path))
            var configuration = Runner.Configuration(parallelism: 2, batchSize: 100, batchByteLimit: payloadSize * 10)
            configuration.claimSize = 100
            let summary = try await Runner(store: tracker.store, pipelines: [test.pipeline], configuration: configuration).run()
            #expect(summary.counts.changed == 200)
            // The two workers share the byte limit: a claim ends once it holds five payloads' worth, so it
            // holds at most six payloads.
            #expect(tracker.peakClaimBytes <= 6 * payloadSize)
            #expect(tracker.reads >= 200 / 6)
        }
    }
}
