/// What the workers and the writer of one run share, as a plain state machine: the claimed records
/// none has started yet, the budget of records they may still claim, the pacing of their claims to
/// the maximum rate, which record each worker is evaluating since when (so that a hang is visible),
/// and what the writer has committed.
///
/// Each transition changes the state and returns what its caller does next; the caller passes the
/// time. Nothing here locks, waits or starts a thread: ``SynchronizedWork`` holds it behind a lock
/// for the runner's tasks and threads, and tests drive it step by step.
package struct SharedWork: Sendable {
    /// Records the run may still take, when it is limited.
    private var budget: Int?
    /// Paces the claims to the maximum rate, when there is one.
    private var pacer: RatePacer?
    private var claimed: [PendingRecord] = []
    /// The next record of `claimed` to hand out.
    private var next = 0
    /// Claims under way in the store.
    private var claiming = 0
    /// The store had nothing more to claim, or the budget is spent.
    private var exhausted = false
    /// Counts finished claims, so that a worker waits only for one that ends after it looked.
    package private(set) var claimsFinished = 0
    private var inFlight: [Int: (recordID: Int64, since: ContinuousClock.Instant)] = [:]
    /// Records handed out to workers whose results the writer has not committed yet.
    private var uncommitted = 0
    /// What the writer has committed so far, also when the run fails.
    package private(set) var committed = RunCounts()
    /// Claims and commits tried again after a transient error (see ``TransientRetry``).
    package private(set) var transientRetries = 0

    /// The work of a run that may take `budget` records (any number when nil), paced by `pacer`.
    package init(budget: Int?, pacer: RatePacer? = nil) {
        self.budget = budget
        self.pacer = pacer
    }

    /// Whether the budget is spent: a limited run takes no more records.
    package var isExhausted: Bool { budget == 0 }

    /// Claimed records not yet handed out.
    package var unstarted: Int { claimed.count - next }

    /// Whether everything claimed is committed: no claim under way, no claimed record left to hand
    /// out, and every record handed out committed. A held pass reports itself held only then.
    package var isSettled: Bool { claiming == 0 && unstarted == 0 && uncommitted <= 0 }

    /// Whether a worker should claim before taking a record: more may be claimed, no claim is under
    /// way, and fewer than `lowWater` records are left to hand out.
    private func needsClaim(below lowWater: Int) -> Bool {
        !exhausted && claiming == 0 && unstarted < lowWater
    }

    /// What a worker does next.
    package enum Step: Sendable {
        /// Evaluate this record, then report with ``finished(worker:)`` or
        /// ``finishedTakingNext(worker:refillBelow:at:)``.
        case evaluate(PendingRecord)
        /// Take records from the budget (``take(upTo:at:)``), claim them from the store, then report
        /// with ``claimed(_:wanted:exhausted:)``.
        case claim
        /// Another worker is claiming and nothing is ready: wait until ``claimsFinished`` is past this value.
        case wait(claimsFinished: Int)
        /// Nothing is left to claim or to evaluate.
        case done
    }

    /// The next step of a worker. One worker at a time claims, as soon as fewer than `refillBelow`
    /// claimed records are left unstarted, so that the others rarely find the claims empty. A record
    /// handed out is not in flight until ``started(_:worker:at:)``.
    package mutating func nextStep(refillBelow lowWater: Int) -> Step {
        if needsClaim(below: lowWater) {
            claiming += 1
            return .claim
        }
        if unstarted > 0 {
            defer { next += 1 }
            uncommitted += 1
            return .evaluate(claimed[next])
        }
        return exhausted && claiming == 0 ? .done : .wait(claimsFinished: claimsFinished)
    }

    /// The next step of a worker while claims are held: evaluate a claimed record, wait for a claim
    /// already under way, or stop when nothing is left; nil when the worker has nothing to do but
    /// wait for the hold to end.
    package mutating func heldStep() -> Step? {
        if unstarted > 0 {
            defer { next += 1 }
            uncommitted += 1
            return .evaluate(claimed[next])
        }
        if claiming > 0 { return .wait(claimsFinished: claimsFinished) }
        return exhausted ? .done : nil
    }

    /// Ends `worker`'s record and hands it the next claimed one, in flight from `now`, when the worker
    /// need not claim first (see ``nextStep(refillBelow:)``); nil otherwise, and the worker has no
    /// record in flight. A worker's thread takes records one after the other this way without
    /// returning to its task.
    package mutating func finishedTakingNext(worker: Int, refillBelow lowWater: Int, at now: ContinuousClock.Instant) -> PendingRecord? {
        guard !needsClaim(below: lowWater), unstarted > 0 else {
            inFlight.removeValue(forKey: worker)
            return nil
        }
        let record = claimed[next]
        next += 1
        uncommitted += 1
        inFlight[worker] = (record.recordID, now)
        return record
    }

    /// Whether a claim ended after the one counted in `claimsFinished`: a worker told to
    /// ``Step/wait(claimsFinished:)`` may look again.
    package func claimFinished(after claimsFinished: Int) -> Bool {
        self.claimsFinished != claimsFinished
    }

    /// Ends a worker's claim: adds the batch for every worker to take from, gives back the budget it
    /// did not use, and notes when nothing more is left to claim. Every waiting worker may look again.
    package mutating func claimed(_ batch: [PendingRecord], wanted: Int, exhausted: Bool) {
        claimsFinished += 1
        claiming -= 1
        if exhausted { self.exhausted = true }
        let unused = wanted - batch.count
        if unused > 0 {
            budget = budget.map { $0 + unused }
            pacer?.giveBack(unused)
        }
        // Drop what was handed out, so payloads leave memory with their records.
        claimed.removeFirst(next)
        next = 0
        claimed += batch
    }

    /// Claims nothing more in this pass: the run was cancelled. The workers derive what is claimed
    /// already, then end.
    package mutating func cancelClaims() {
        exhausted = true
        claimsFinished += 1
    }

    /// Takes up to `count` records from the budget at `now`: how many may be claimed, and how long to
    /// wait before claiming them to keep to the maximum rate.
    package mutating func take(upTo count: Int, at now: ContinuousClock.Instant) -> (granted: Int, wait: Duration) {
        let granted = budget.map { min($0, count) } ?? count
        budget = budget.map { $0 - granted }
        let wait = granted > 0 ? pacer?.take(granted, at: now) ?? .zero : .zero
        return (granted, wait)
    }

    /// Starts the next pipeline of the run: its store has not been found exhausted yet. The previous
    /// pipeline's workers have all ended, so nothing of it is claimed, handed out or in flight; the
    /// budget, the pacing and the counts carry on across pipelines.
    package mutating func beginPipeline() {
        precondition(claiming == 0 && unstarted == 0 && inFlight.isEmpty, "a pipeline begins while the previous one's records are in hand")
        exhausted = false
        claimed = []
        next = 0
    }

    /// How the committed records used stored projections.
    package private(set) var projections = ProjectionCounts()

    /// Adds a commit's counts, and how its results used projections.
    package mutating func commit(_ counts: RunCounts, results: [RecordResult] = []) {
        committed += counts
        uncommitted -= results.count
        projections.count(results)
    }

    /// Counts a claim or a commit tried again after a transient error.
    package mutating func retried() {
        transientRetries += 1
    }

    /// Notes that `worker` started evaluating `recordID` at `now`.
    package mutating func started(_ recordID: Int64, worker: Int, at now: ContinuousClock.Instant) {
        inFlight[worker] = (recordID, now)
    }

    /// Notes that `worker` has no record in flight any more.
    package mutating func finished(worker: Int) {
        inFlight.removeValue(forKey: worker)
    }

    /// The records in flight at `now` for longer than `timeout`, longest first; none without a timeout.
    package func overdue(after timeout: Duration?, at now: ContinuousClock.Instant) -> [InFlightRecord] {
        guard let timeout else { return [] }
        return inFlight.compactMap { worker, entry in
            let elapsed = now - entry.since
            return elapsed > timeout ? InFlightRecord(recordID: entry.recordID, worker: worker, elapsed: elapsed) : nil
        }.sorted { $0.elapsed > $1.elapsed }
    }
}
