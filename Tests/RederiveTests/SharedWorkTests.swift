import Rederive
import Testing

/// The state machine the runner's workers and writer share, driven step by step with no threads:
/// who claims, what each worker evaluates next, when they wait and when they are done, the budget of
/// a limited run, pacing, the records in flight and the committed counts.
@Suite("Shared work of a run")
struct SharedWorkTests {
    static let start = ContinuousClock.now

    static func records(_ ids: ClosedRange<Int64>) -> [PendingRecord] {
        ids.map { PendingRecord(recordID: $0, generation: 1, staleProcessors: [0], input: .payload(nil)) }
    }

    /// The record a step hands out, or nil when it says to do something else.
    static func evaluated(_ step: SharedWork.Step) -> Int64? {
        guard case .evaluate(let record) = step else { return nil }
        return record.recordID
    }

    static func isClaim(_ step: SharedWork.Step) -> Bool {
        if case .claim = step { return true }
        return false
    }

    static func isDone(_ step: SharedWork.Step) -> Bool {
        if case .done = step { return true }
        return false
    }

    @Test func oneWorkerClaimsWhileTheOthersWaitForThatClaim() {
        var work = SharedWork(budget: nil)
        #expect(Self.isClaim(work.nextStep(refillBelow: 2)))
        guard case .wait(let claimsFinished) = work.nextStep(refillBelow: 2) else {
            Issue.record("a second worker should wait for the claim under way")
            return
        }
        #expect(!work.claimFinished(after: claimsFinished))
        #expect(work.take(upTo: 3, at: Self.start) == (3, Duration.zero))
        work.claimed(Self.records(1...3), wanted: 3, exhausted: false)
        #expect(work.claimFinished(after: claimsFinished))
        #expect(Self.evaluated(work.nextStep(refillBelow: 2)) == 1)
        #expect(Self.evaluated(work.nextStep(refillBelow: 2)) == 2)
    }

    @Test func aWorkerRefillsOnceFewerThanTheLowWaterAreLeftUnstarted() {
        var work = SharedWork(budget: nil)
        _ = work.nextStep(refillBelow: 2)
        work.claimed(Self.records(1...3), wanted: 3, exhausted: false)
        #expect(Self.evaluated(work.nextStep(refillBelow: 2)) == 1)
        #expect(Self.evaluated(work.nextStep(refillBelow: 2)) == 2)
        #expect(work.unstarted == 1)
        #expect(Self.isClaim(work.nextStep(refillBelow: 2)))
        // While that claim is under way, the record left is still handed out.
        #expect(Self.evaluated(work.nextStep(refillBelow: 2)) == 3)
        work.claimed(Self.records(4...5), wanted: 3, exhausted: false)
        #expect(Self.evaluated(work.nextStep(refillBelow: 2)) == 4)
    }

    @Test func workersAreDoneOnlyOnceTheStoreIsExhaustedAndNoClaimIsUnderWay() {
        var work = SharedWork(budget: nil)
        _ = work.nextStep(refillBelow: 1)
        work.claimed(Self.records(1...1), wanted: 2, exhausted: false)
        #expect(Self.evaluated(work.nextStep(refillBelow: 1)) == 1)
        #expect(Self.isClaim(work.nextStep(refillBelow: 1)))
        guard case .wait = work.nextStep(refillBelow: 1) else {
            Issue.record("a worker should wait while the last claim is under way")
            return
        }
        work.claimed([], wanted: 2, exhausted: true)
        #expect(Self.isDone(work.nextStep(refillBelow: 1)))
        #expect(Self.isDone(work.nextStep(refillBelow: 1)))
    }

    @Test func aLimitedRunTakesNoMoreThanItsBudgetAndGetsBackWhatAClaimDidNotFind() {
        var work = SharedWork(budget: 5)
        #expect(!work.isExhausted)
        #expect(Self.isClaim(work.nextStep(refillBelow: 1)))
        #expect(work.take(upTo: 3, at: Self.start) == (3, Duration.zero))
        work.claimed(Self.records(1...2), wanted: 3, exhausted: false)
        #expect(work.take(upTo: 4, at: Self.start) == (3, Duration.zero))
        #expect(work.isExhausted)
        #expect(work.take(upTo: 4, at: Self.start) == (0, Duration.zero))
    }

    @Test func claimsArePacedToTheMaximumRateAndUnusedRecordsGiveTheirTimeBack() {
        var work = SharedWork(budget: nil, pacer: RatePacer(rate: 10, burst: 5, now: Self.start))
        #expect(Self.isClaim(work.nextStep(refillBelow: 10)))
        #expect(work.take(upTo: 5, at: Self.start) == (5, Duration.zero))
        work.claimed(Self.records(1...5), wanted: 5, exhausted: false)
        #expect(Self.isClaim(work.nextStep(refillBelow: 10)))
        #expect(work.take(upTo: 5, at: Self.start) == (5, Duration.milliseconds(500)))
        // That claim found nothing: its five records are given back, and the next claim of five waits
        // no longer than it did.
        work.claimed([], wanted: 5, exhausted: false)
        #expect(Self.isClaim(work.nextStep(refillBelow: 10)))
        #expect(work.take(upTo: 5, at: Self.start) == (5, Duration.milliseconds(500)))
    }

    @Test func aThreadTakesTheNextRecordUntilItsWorkerMustClaim() {
        var work = SharedWork(budget: nil)
        _ = work.nextStep(refillBelow: 2)
        work.claimed(Self.records(1...4), wanted: 4, exhausted: false)
        guard let first = Self.evaluated(work.nextStep(refillBelow: 2)) else {
            Issue.record("a claimed record should be handed out")
            return
        }
        work.started(first, worker: 0, at: Self.start)
        #expect(work.finishedTakingNext(worker: 0, refillBelow: 2, at: Self.start)?.recordID == 2)
        #expect(work.finishedTakingNext(worker: 0, refillBelow: 2, at: Self.start)?.recordID == 3)
        // One record is left, below the low water: the worker goes back to claim.
        #expect(work.finishedTakingNext(worker: 0, refillBelow: 2, at: Self.start) == nil)
        #expect(work.overdue(after: .zero, at: Self.start + .seconds(1)).isEmpty)
        #expect(Self.isClaim(work.nextStep(refillBelow: 2)))
    }

    @Test func recordsInFlightBeyondTheTimeoutAreOverdueLongestFirst() {
        var work = SharedWork(budget: nil)
        work.started(7, worker: 0, at: Self.start)
        work.started(8, worker: 1, at: Self.start + .seconds(2))
        work.started(9, worker: 2, at: Self.start + .seconds(4))
        let now = Self.start + .seconds(5)
        #expect(work.overdue(after: nil, at: now).isEmpty)
        #expect(work.overdue(after: .seconds(2), at: now) == [
            InFlightRecord(recordID: 7, worker: 0, elapsed: .seconds(5)),
            InFlightRecord(recordID: 8, worker: 1, elapsed: .seconds(3)),
        ])
        work.finished(worker: 0)
        #expect(work.overdue(after: .seconds(2), at: now).map(\.recordID) == [8])
    }

    @Test func commitsAddUp() {
        var work = SharedWork(budget: nil)
        work.commit(RunCounts(changed: 2, unchanged: 1, failed: 0, skipped: 0))
        work.commit(RunCounts(changed: 1, unchanged: 0, failed: 3, skipped: 1))
        #expect(work.committed == RunCounts(changed: 3, unchanged: 1, failed: 3, skipped: 1))
    }

    @Test func theNextPipelineClaimsAgainAfterThePreviousOneWasExhausted() {
        var work = SharedWork(budget: nil)
        #expect(Self.isClaim(work.nextStep(refillBelow: 1)))
        _ = work.take(upTo: 2, at: Self.start)
        work.claimed(Self.records(1...2), wanted: 2, exhausted: true)
        #expect(Self.evaluated(work.nextStep(refillBelow: 1)) == 1)
        #expect(Self.evaluated(work.nextStep(refillBelow: 1)) == 2)
        work.finished(worker: 0)
        #expect(Self.isDone(work.nextStep(refillBelow: 1)))
        work.beginPipeline()
        #expect(Self.isClaim(work.nextStep(refillBelow: 1)))
    }
}
