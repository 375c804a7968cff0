import MetricsTestKit
@testable import Rederive
import RederiveTestSupport
@testable import RederiveWatch
import Testing

/// The watcher's record counters take each commit's dispositions as they are: per processor, a record
/// is derived only when its values changed, and a result the commit skipped counts nowhere.
@Suite struct WatchMetricsCommitTests {
    let plan = RunPlan(pipeline: TestPipeline().pipeline)

    func result(_ id: Int64, _ outcomes: [(processor: Int, outcome: ProcessorOutcome)]) -> RecordResult {
        RecordResult(recordID: id, generation: 1, payloadDigest: id, outcomes: outcomes, inputDigests: [:])
    }

    func handled(_ metrics: TestMetrics, _ processor: String, _ outcome: WatchMetrics.Outcome) -> Int64 {
        metrics.counterTotal(label: "rederive_records_handled_total", dimensions: [
            ("pipeline", "items"), ("processor", processor), ("outcome", outcome.rawValue),
        ])
    }

    @Test func eachProcessorCountsWhatTheCommitMadeOfItsRecords() {
        let derivedBoth: [(processor: Int, outcome: ProcessorOutcome)] = [
            (0, .derived([.real(1)])), (1, .derived([.integer(1), .text("A")])),
        ]
        let failingStats: [(processor: Int, outcome: ProcessorOutcome)] = [
            (0, .derived([.real(1)])), (1, .failed(.decoding, "truncated")),
        ]
        let results = [result(1, derivedBoth), result(2, derivedBoth), result(3, failingStats), result(4, failingStats)]
        let outcome = CommitOutcome([
            // Only `total`'s value changed: `stats` held its values already.
            RecordDisposition(recordID: 1, disposition: .changed, derived: [0, 1], failed: [], changed: [0]),
            RecordDisposition(recordID: 2, disposition: .unchanged, derived: [0, 1], failed: [], changed: []),
            RecordDisposition(recordID: 3, disposition: .failed, derived: [0], failed: [1], changed: [0]),
            // Its payload changed meanwhile: nothing of it was stored.
            .skipped(4),
        ])
        let factory = TestMetrics()
        WatchMetrics(factory: factory).committed(results, outcome: outcome, duration: .milliseconds(5), plan: plan)

        #expect(handled(factory, "total", .derived) == 2)
        #expect(handled(factory, "total", .unchanged) == 1)
        #expect(handled(factory, "stats", .derived) == 0)
        #expect(handled(factory, "stats", .unchanged) == 2)
        #expect(handled(factory, "stats", .failed) == 1)
        #expect(factory.counterTotal(label: "rederive_failures_total", dimensions: [("pipeline", "items"), ("kind", "decoding")]) == 1)
    }
}
