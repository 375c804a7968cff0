import Synchronization

/// What the workers and the writer of one run share: the claimed records none has started yet, the
/// budget of records they may still claim, the pacing of their claims to the maximum rate, which
/// record each is deriving since when (so that a hang is visible), and what the writer has committed.
final class SharedWork: Sendable {
    private struct State {
        /// Records the run may still take, when it is limited.
        var budget: Int?
        /// Paces the claims to the maximum rate, when there is one.
        var pacer: RatePacer?
        var claimed: [PendingRecord] = []
        /// The next record of `claimed` to hand out.
        var next = 0
        /// Claims under way in the store.
        var claiming = 0
        /// The store had nothing more to claim, or the budget is spent.
        var exhausted = false
        /// Counts finished claims, so that a worker waits only for one that ends after it looked.
        var claimsFinished = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
        var inFlight: [Int: (recordID: Int64, since: ContinuousClock.Instant)] = [:]
        /// What the writer has committed so far.
        var committed = RunCounts()

        /// Claimed records not yet handed out.
        var unstarted: Int { claimed.count - next }

        /// Whether a worker should claim before taking a record: more may be claimed, no claim is under
        /// way, and fewer than `lowWater` records are left to hand out.
        func needsClaim(below lowWater: Int) -> Bool {
            !exhausted && claiming == 0 && unstarted < lowWater
        }
    }

    private let state: Mutex<State>
    let clock: ContinuousClock

    init(budget: Int?, pacer: RatePacer? = nil, clock: ContinuousClock) {
        state = Mutex(State(budget: budget, pacer: pacer))
        self.clock = clock
    }

    var isExhausted: Bool { state.withLock { $0.budget == 0 } }

    /// What a worker does next.
    enum Step {
        case derive(PendingRecord)
        /// Claim the next batch from the store, then report with ``claimed(_:wanted:exhausted:)``.
        case claim
        /// Another worker is claiming and nothing is ready: ``waitForClaim(after:)`` with this value.
        case wait(claimsFinished: Int)
        /// Nothing is left to claim or to derive.
        case done
    }

    /// The next step of a worker. One worker at a time claims, as soon as fewer than `refillBelow`
    /// claimed records are left unstarted, so that the others rarely find the claims empty.
    func nextStep(refillBelow lowWater: Int) -> Step {
        state.withLock { state in
            if state.needsClaim(below: lowWater) {
                state.claiming += 1
                return .claim
            }
            if state.unstarted > 0 {
                defer { state.next += 1 }
                return .derive(state.claimed[state.next])
            }
            return state.exhausted && state.claiming == 0 ? .done : .wait(claimsFinished: state.claimsFinished)
        }
    }

    /// Ends `worker`'s record and hands it the next claimed one, noted as started, when the worker need
    /// not claim first (see ``nextStep(refillBelow:)``); nil otherwise. A worker's thread takes records
    /// one after the other this way without returning to its task, taking the lock once per record.
    func finishedTakingNext(worker: Int, refillBelow lowWater: Int) -> PendingRecord? {
        let now = clock.now
        return state.withLock { state in
            guard !state.needsClaim(below: lowWater), state.unstarted > 0 else {
                state.inFlight.removeValue(forKey: worker)
                return nil
            }
            let next = state.claimed[state.next]
            state.next += 1
            state.inFlight[worker] = (next.recordID, now)
            return next
        }
    }

    /// Suspends until a claim ends after the one counted in `claimsFinished`.
    func waitForClaim(after claimsFinished: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finished = state.withLock { state in
                guard state.claimsFinished == claimsFinished else { return true }
                state.waiting.append(continuation)
                return false
            }
            if finished { continuation.resume() }
        }
    }

    /// Ends a worker's claim: adds the batch for every worker to take from, gives back the budget it did
    /// not use, and notes when nothing more is left to claim.
    func claimed(_ batch: [PendingRecord], wanted: Int, exhausted: Bool) {
        let waiting = state.withLock { state in
            defer { state.waiting.removeAll() }
            state.claimsFinished += 1
            state.claiming -= 1
            if exhausted { state.exhausted = true }
            let unused = wanted - batch.count
            if unused > 0 {
                state.budget = state.budget.map { $0 + unused }
                state.pacer?.giveBack(unused)
            }
            // Drop what was handed out, so payloads leave memory with their records.
            state.claimed.removeFirst(state.next)
            state.next = 0
            state.claimed += batch
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Takes up to `count` records from the budget: how many may be claimed, and how long to wait
    /// before claiming them to keep to the maximum rate.
    func take(upTo count: Int) -> (granted: Int, wait: Duration) {
        let now = clock.now
        return state.withLock { state in
            let granted = state.budget.map { min($0, count) } ?? count
            state.budget = state.budget.map { $0 - granted }
            let wait = granted > 0 ? state.pacer?.take(granted, at: now) ?? .zero : .zero
            return (granted, wait)
        }
    }

    /// What the writer has committed so far, also when the run fails.
    var committed: RunCounts { state.withLock { $0.committed } }

    /// Adds a commit's counts.
    func commit(_ counts: RunCounts) {
        state.withLock { $0.committed += counts }
    }

    func started(_ recordID: Int64, worker: Int) {
        let now = clock.now
        state.withLock { $0.inFlight[worker] = (recordID, now) }
    }

    func finished(worker: Int) {
        _ = state.withLock { $0.inFlight.removeValue(forKey: worker) }
    }

    /// The records being derived for longer than `timeout`, longest first; none without a timeout.
    func overdue(after timeout: Duration?) -> [InFlightRecord] {
        guard let timeout else { return [] }
        let now = clock.now
        return state.withLock { state in
            state.inFlight.compactMap { worker, entry in
                let elapsed = now - entry.since
                return elapsed > timeout ? InFlightRecord(recordID: entry.recordID, worker: worker, elapsed: elapsed) : nil
            }
        }.sorted { $0.elapsed > $1.elapsed }
    }
}
