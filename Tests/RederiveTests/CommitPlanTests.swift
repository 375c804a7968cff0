@testable import Rederive
import RederiveTestSupport
import Testing

/// The commit plan alone, without a store: what each result becomes and what is written for it.
/// The pipeline is ``TestPipeline``'s: `total` (REAL `total`), `stats` (INTEGER `value_count`
/// default 0, TEXT `label_upper`).
@Suite struct CommitPlanTests {
    let pipeline = TestPipeline().pipeline
    /// Rules like the SQLite and PostgreSQL stores'.
    let databaseRules = StorageRules(nanIsNull: true, realColumnsHoldIntegersAsReals: true, realZeroHasNoSign: true)

    func result(_ id: Int64, generation: Int64 = 1, _ outcomes: [(processor: Int, outcome: ProcessorOutcome)]) -> RecordResult {
        RecordResult(recordID: id, generation: generation, payloadDigest: 40 + id, outcomes: outcomes, inputDigests: [1: 99])
    }

    func derivedBoth(_ id: Int64, total: DerivedValue = .real(6), count: Int64 = 3, label: String = "A") -> RecordResult {
        result(id, [(0, .derived([total])), (1, .derived([.integer(count), .text(label)]))])
    }

    func plan(_ results: [RecordResult], _ stored: [Int64: StoredCommitState], rules: StorageRules? = nil) throws -> CommitPlan {
        try CommitBatch(results, of: pipeline).plan(stored: stored, rules: rules ?? databaseRules)
    }

    func row(total: DerivedValue = .real(6), count: Int64 = 3, label: String = "A") -> [Int: [DerivedValue]] {
        [0: [total], 1: [.integer(count), .text(label)]]
    }

    @Test func aRecordDeletedReplacedOrHeldByAnotherLeaseIsSkippedAndNothingIsWrittenForIt() throws {
        let commit = try plan([derivedBoth(1), derivedBoth(2), derivedBoth(3)], [
            2: StoredCommitState(generation: 2, values: nil),
            3: StoredCommitState(generation: 1, heldByAnother: true, values: nil),
        ])
        #expect(commit.records.map(\.disposition) == [.skipped, .skipped, .skipped])
        #expect(commit.steps.isEmpty)
        #expect(commit.counts == RunCounts(skipped: 3))
    }

    @Test func aFirstDerivationChangesTheRecordAndKeepsTheColumnsDefaultsAsReplaced() throws {
        let commit = try plan([derivedBoth(1)], [1: StoredCommitState(generation: 1, values: nil)])
        #expect(commit.records.map(\.disposition) == [.changed])
        #expect(commit.counts == RunCounts(changed: 1))
        let step = try #require(commit.steps.first)
        #expect(commit.steps.count == 1)
        #expect(step.committed == [1])
        #expect(step.values == [ValueWrite(recordID: 1, processors: [0, 1], values: [.real(6), .integer(3), .text("A")])])
        #expect(step.replaced == [ReplacedWrite(recordID: 1, generation: 1, processors: [
            ReplacedProcessor(processor: 0, old: .defaults), ReplacedProcessor(processor: 1, old: .defaults),
        ])])
        #expect(step.stamps == [StampWrite(recordID: 1, generation: 1, payloadDigest: 41, processors: [0, 1], inputDigests: [1: 99])])
        #expect(step.clearedFailures.map(\.processor) == [0, 1])
        #expect(step.failures.isEmpty)
    }

    @Test func valuesTheStoreHoldsAsTheStoredOnesLeaveTheRecordUnchangedAndOnlyRenewItsStamps() throws {
        // An integer in a REAL column is held as a real; a NaN as NULL: under the database rules
        // nothing changes, while a store that holds values exactly sees two changes.
        let results = [derivedBoth(1, total: .integer(6)), derivedBoth(2, total: .real(.nan))]
        let stored: [Int64: StoredCommitState] = [1: StoredCommitState(generation: 1, values: row()), 2: StoredCommitState(generation: 1, values: row(total: .null))]
        let commit = try plan(results, stored)
        #expect(commit.records.map(\.disposition) == [.unchanged, .unchanged])
        #expect(commit.steps.first?.values.isEmpty == true)
        #expect(commit.steps.first?.replaced.isEmpty == true)
        #expect(commit.steps.first?.stamps.map(\.recordID) == [1, 2])
        #expect(commit.steps.first?.committed == [1, 2])

        let exact = try plan(results, stored, rules: .exact)
        #expect(exact.records.map(\.disposition) == [.changed, .changed])
    }

    @Test func onlyTheProcessorsWhoseValuesChangeKeepWhatTheyReplacedButAllDerivedValuesAreWritten() throws {
        let commit = try plan([derivedBoth(1, total: .real(7))], [1: StoredCommitState(generation: 1, values: row())])
        #expect(commit.records.map(\.disposition) == [.changed])
        #expect(commit.records.first?.changed == [0])
        #expect(commit.outcome.counts == RunCounts(changed: 1))
        let step = try #require(commit.steps.first)
        #expect(step.replaced == [ReplacedWrite(recordID: 1, generation: 1, processors: [ReplacedProcessor(processor: 0, old: .values([.real(6)]))])])
        #expect(step.values.first?.processors == [0, 1])
        #expect(step.stamps.first?.processors == [0, 1])
    }

    @Test func aRecordWithAFailureCountsAsFailedWhileTheValuesOfTheOtherProcessorsAreStored() throws {
        let failing = result(1, [(0, .failed(.processor, "refusing")), (1, .derived([.integer(4), .text("B")]))])
        let commit = try plan([failing], [1: StoredCommitState(generation: 1, values: row())])
        #expect(commit.records == [RecordDisposition(recordID: 1, disposition: .failed, derived: [1], failed: [0], changed: [1])])
        #expect(commit.counts == RunCounts(failed: 1))
        let step = try #require(commit.steps.first)
        #expect(step.failures == [FailureWrite(recordID: 1, generation: 1, processor: 0, kind: .processor, message: "refusing")])
        #expect(step.values == [ValueWrite(recordID: 1, processors: [1], values: [.integer(4), .text("B")])])
        #expect(step.stamps.first?.processors == [1])
        #expect(step.stamps.first?.inputDigests == [1: 99])
        #expect(step.clearedFailures.map(\.processor) == [1])
    }

    @Test func aRecordMetTwiceInOneBatchIsPlannedInASecondStepThatSeesTheFirstResultsValues() throws {
        let results = [derivedBoth(1), derivedBoth(2), derivedBoth(1), derivedBoth(1, total: .integer(8))]
        let commit = try plan(results, [1: StoredCommitState(generation: 1, values: nil), 2: StoredCommitState(generation: 1, values: row())])
        // The first result creates the row; the second finds the same values; the third replaces
        // the total the first stored, as the store holds it (an integer in a REAL column: a real).
        #expect(commit.records.map(\.disposition) == [.changed, .unchanged, .unchanged, .changed])
        #expect(commit.steps.map(\.committed) == [[1, 2], [1], [1]])
        #expect(commit.steps[2].replaced == [ReplacedWrite(recordID: 1, generation: 1, processors: [ReplacedProcessor(processor: 0, old: .values([.real(6)]))])])
        #expect(commit.counts == RunCounts(changed: 2, unchanged: 2))
    }

    @Test func aResultWithTooFewValuesRefusesTheWholeBatchNamingTheProcessorAndRecord() throws {
        let short = result(7, [(1, .derived([.integer(1)]))])
        let error = #expect(throws: RederiveError.self) { try CommitBatch([derivedBoth(1), short], of: pipeline) }
        #expect(error?.code == .invalidRegistration)
        #expect(error?.message.contains("processor stats") == true)
        #expect(error?.message.contains("record 7") == true)
    }
}
