import Synchronization

/// ``SharedWork`` shared by a run's workers, their threads and its writer: every transition under one
/// lock, at the time of the run's clock, and the workers that wait for another worker's claim.
package final class SynchronizedWork: Sendable {
    private struct State {
        var work: SharedWork
        /// Workers waiting for a claim to end.
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>
    package let clock: ContinuousClock

    /// Shares `work`, timed by `clock`.
    package init(_ work: SharedWork, clock: ContinuousClock) {
        state = Mutex(State(work: work))
        self.clock = clock
    }

    /// Whether the budget is spent.
    var isExhausted: Bool { state.withLock { $0.work.isExhausted } }

    /// What the writer has committed so far, also when the run fails.
    package var committed: RunCounts { state.withLock { $0.work.committed } }

    /// Claims and commits tried again after a transient error so far.
    package var transientRetries: Int { state.withLock { $0.work.transientRetries } }

    /// See ``SharedWork/retried()``.
    func retried() {
        state.withLock { $0.work.retried() }
    }

    /// See ``SharedWork/isSettled``.
    var isSettled: Bool { state.withLock { $0.work.isSettled } }

    /// See ``SharedWork/beginPipeline()``.
    func beginPipeline() {
        state.withLock { $0.work.beginPipeline() }
    }

    /// See ``SharedWork/nextStep(refillBelow:)``.
    func nextStep(refillBelow lowWater: Int) -> SharedWork.Step {
        state.withLock { $0.work.nextStep(refillBelow: lowWater) }
    }

    /// See ``SharedWork/heldStep()``.
    func heldStep() -> SharedWork.Step? {
        state.withLock { $0.work.heldStep() }
    }

    /// See ``SharedWork/finishedTakingNext(worker:refillBelow:at:)``: taking the lock once per record.
    func finishedTakingNext(worker: Int, refillBelow lowWater: Int) -> PendingRecord? {
        let now = clock.now
        return state.withLock { $0.work.finishedTakingNext(worker: worker, refillBelow: lowWater, at: now) }
    }

    /// Suspends until a claim ends after the one counted in `claimsFinished`.
    func waitForClaim(after claimsFinished: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finished = state.withLock { state in
                guard !state.work.claimFinished(after: claimsFinished) else { return true }
                state.waiting.append(continuation)
                return false
            }
            if finished { continuation.resume() }
        }
    }

    /// See ``SharedWork/claimed(_:wanted:exhausted:)``; wakes the workers waiting for it.
    func claimed(_ batch: [PendingRecord], wanted: Int, exhausted: Bool) {
        let waiting = state.withLock { state in
            state.work.claimed(batch, wanted: wanted, exhausted: exhausted)
            defer { state.waiting.removeAll() }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    /// See ``SharedWork/cancelClaims()``; wakes the workers waiting for a claim.
    func cancelClaims() {
        let waiting = state.withLock { state in
            state.work.cancelClaims()
            defer { state.waiting.removeAll() }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    /// See ``SharedWork/take(upTo:at:)``.
    func take(upTo count: Int) -> (granted: Int, wait: Duration) {
        let now = clock.now
        return state.withLock { $0.work.take(upTo: count, at: now) }
    }

    /// See ``SharedWork/commit(_:results:)``.
    func commit(_ counts: RunCounts, results: [RecordResult] = []) {
        state.withLock { $0.work.commit(counts, results: results) }
    }

    /// How the committed records used stored projections.
    var projections: ProjectionCounts { state.withLock { $0.work.projections } }

    /// See ``SharedWork/started(_:worker:at:)``.
    func started(_ recordID: Int64, worker: Int) {
        let now = clock.now
        state.withLock { $0.work.started(recordID, worker: worker, at: now) }
    }

    /// See ``SharedWork/finished(worker:)``.
    func finished(worker: Int) {
        state.withLock { $0.work.finished(worker: worker) }
    }

    /// See ``SharedWork/overdue(after:at:)``.
    func overdue(after timeout: Duration?) -> [InFlightRecord] {
        guard timeout != nil else { return [] }
        let now = clock.now
        return state.withLock { $0.work.overdue(after: timeout, at: now) }
    }
}
