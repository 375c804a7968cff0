import Rederive
import Synchronization

/// One pipeline's fresh records for a watcher: those with no current stamp (new, rewritten,
/// invalidated, or whose last attempt failed), found cheaply as they are written.
///
/// The lane's claims go on from where they reached, so that looking again after a change costs the
/// records written since (new records come last in id order), not a pass over the table. Records
/// behind that point (a payload replaced, a record invalidated) are found by a sweep, at most once per
/// sweep interval: the store moves the claims back to where its index counts show no fresh record
/// behind (`ChangeSignaling/sweepFreshClaims(_:lease:lowestInFlight:)`), which at the lane's first
/// look, when nothing is fresh, is the last record: looking then costs the records written since, not a
/// probe of every record.
///
/// While a backlog drains, the lane claims ahead of the backlog's claims (`ClaimsAhead`) whenever
/// the store signalled a change since its last look, and its records are derived and committed in the
/// backlog's stream. A sweep may then find records the lane handed out and the stream has not
/// committed yet: they are not handed out again.
///
/// A backlog of fresh records (a table never derived, or invalidated whole) is drained up to the last
/// id the watcher saw when it found it (``drainingUpTo(_:_:)``): the lane then claims only the records
/// after that id, ahead of the drain, so that records written meanwhile never queue behind it.
final class FreshLane: ClaimsAhead {
    /// The plan of the lane's claims.
    let plan: RunPlan
    private let store: any WatchableStore
    private let signals: any ChangeSignaling
    private let lease: LeaseKeeper
    private let mailbox: ChangeMailbox
    /// The shortest time between two looks ahead of a backlog, unless the first filled its claim.
    private let lookInterval: Duration
    /// The shortest time between two sweeps.
    private let sweepInterval: Duration
    private let clock = ContinuousClock()

    fileprivate struct State {
        var nextLook: ContinuousClock.Instant
        var nextSweep: ContinuousClock.Instant
        /// The last look ahead filled its claim: the next one looks again without a signal.
        var more = false
        /// While a backlog of fresh records drains up to an id: the lane's plan for the records after it.
        var afterDrained: RunPlan?
        /// Records handed out ahead of a backlog and not committed yet.
        var inFlight: Set<Int64> = []
        /// The lane looked without sweeping since its last sweep: a record written behind where its
        /// claims reached may wait for the next sweep.
        var sweepOwed = false
    }

    private let state: Mutex<State>

    /// The fresh lane of `plan`'s pipeline, claimed under `lease` from `store`, looking ahead of a
    /// backlog when `mailbox` holds a signal.
    init(
        _ plan: RunPlan, store: any WatchableStore, signals: any ChangeSignaling, lease: LeaseKeeper, mailbox: ChangeMailbox,
        lookInterval: Duration, sweepInterval: Duration
    ) {
        self.plan = plan.restricted(to: .fresh)
        self.store = store
        self.signals = signals
        self.lease = lease
        self.mailbox = mailbox
        self.lookInterval = lookInterval
        self.sweepInterval = sweepInterval
        let now = clock.now
        state = Mutex(State(nextLook: now, nextSweep: now))
    }

    /// When the lane owes a sweep: it looked since its last sweep without one, and the next is due then.
    var owedSweep: ContinuousClock.Instant? {
        state.withLock { $0.sweepOwed ? $0.nextSweep : nil }
    }

    /// Runs `drain`, a pass over the stale records up to `lastID`, with the lane claiming ahead of it only
    /// the records after `lastID`: the two never hand out the same record, and the lane's sweeps look
    /// no further back than `lastID`, which is below `Int64.max`.
    func drainingUpTo<T>(_ lastID: Int64, _ drain: () async throws -> T) async throws -> T {
        let after = plan.restricted(to: .fresh, recordIDs: (lastID + 1)...Int64.max)
        state.withLock { $0.afterDrained = after }
        defer { state.withLock { $0.afterDrained = nil } }
        return try await drain()
    }

    /// Makes the next look sweep: what the lane handed out may not have been committed (a pass failed).
    /// No pass is under way, so nothing the lane handed out is in flight any more.
    func sweepNext() {
        state.withLock { state in
            state.nextSweep = clock.now
            state.inFlight = []
        }
    }

    /// Claims fresh records ahead of a backlog's, when the store signalled a change since the last look
    /// (or the last look filled its claim, or a sweep is due), and no sooner than the look interval after
    /// a look that found nothing.
    func claim(limit: Int, byteLimit: Int) async throws -> [PendingRecord] {
        let now = clock.now
        let look = state.withLock { state -> (sweep: Bool, handedOut: Set<Int64>)? in
            guard now >= state.nextLook else { return nil }
            let sweep = now >= state.nextSweep
            // The signal is taken only when the lane looks: one that comes sooner waits for the look.
            guard mailbox.takeSignal() || state.more || sweep else { return nil }
            state.swept(sweep, at: now, interval: sweepInterval)
            return (sweep, state.inFlight)
        }
        guard let look else { return [] }
        let claimed = try await claimFromStore(
            sweep: look.sweep, lowestInFlight: look.handedOut.min(), limit: limit, byteLimit: byteLimit
        )
        return state.withLock { state in
            state.more = claimed.count >= limit
            // A look that filled its claim looks again at once; any other waits the look interval, so
            // that records arriving one by one are claimed a few at a time: each look is a claim of
            // its own on the backlog's path, and costs the drain as much whatever it finds.
            state.nextLook = state.more ? now : now + lookInterval
            // Handed out before this look began, or since: the stream derives it already.
            let records = claimed.filter { !look.handedOut.contains($0.recordID) && !state.inFlight.contains($0.recordID) }
            state.inFlight.formUnion(records.map(\.recordID))
            return records
        }
    }

    /// Claims fresh records now, sweeping first if a sweep is due: the first claim of a pass of the lane's
    /// own, when nothing it handed out is in flight.
    func claimNow(limit: Int, byteLimit: Int) async throws -> [PendingRecord] {
        let now = clock.now
        let sweep = state.withLock { state in
            let sweep = now >= state.nextSweep
            state.swept(sweep, at: now, interval: sweepInterval)
            return sweep
        }
        return try await claimFromStore(sweep: sweep, lowestInFlight: nil, limit: limit, byteLimit: byteLimit)
    }

    /// Claims from where the lane's claims reached, or, when it sweeps, from where the store finds no
    /// fresh record behind (before `lowestInFlight`, the lowest record handed out and not committed).
    /// A sweep may pass over the whole table: the next waits ten times as long as it took at least, so
    /// that sweeps of a large table take a tenth of a core at most.
    private func claimFromStore(sweep: Bool, lowestInFlight: Int64?, limit: Int, byteLimit: Int) async throws -> [PendingRecord] {
        let store = self.store
        let signals = self.signals
        let plan = state.withLock { $0.afterDrained } ?? self.plan
        let started = clock.now
        if sweep {
            let held = lease.current
            try await signals.sweepFreshClaims(plan, lease: held, lowestInFlight: lowestInFlight)
        }
        let records = try await lease.withCurrentLease(pipeline: plan.pipeline.name) { held in
            try await store.claim(plan, limit: limit, byteLimit: byteLimit, lease: held)
        }
        if sweep {
            let ended = clock.now
            state.withLock { $0.nextSweep = max($0.nextSweep, ended + started.duration(to: ended) * 10) }
        }
        return records
    }

    /// The stream committed `results`: records of the lane among them are no longer in flight.
    func committed(_ results: [RecordResult]) {
        state.withLock { state in
            guard !state.inFlight.isEmpty else { return }
            for result in results {
                state.inFlight.remove(result.recordID)
            }
        }
    }
}

extension FreshLane.State {
    /// A look at `now` sweeps (`sweep`) or not.
    fileprivate mutating func swept(_ sweep: Bool, at now: ContinuousClock.Instant, interval: Duration) {
        if sweep { nextSweep = now + interval }
        sweepOwed = !sweep
    }
}
