import Logging
import Rederive

/// What a watcher does while it holds the store's lease: passes over the stale records, then a wait for
/// the store's next signal, until it is stopped. Passes commit under the watcher's ``RollingRun``,
/// started when records are first found stale and ended when it is due.
///
/// A signal is answered by a pass of each pipeline's ``FreshLane``, which looks only at what was
/// written since its last look. The stale records are counted, and every one of them derived, when the
/// watcher starts, when no signal came for a poll interval, and at least once per poll interval: that
/// is when a backlog (a new build's logic versions) is found, and drained with the fresh records
/// claimed ahead of it in the same stream. Stale records none of which is in the backlog (the store's
/// `ChangeSignaling/backlogCount(_:)`) are left to the fresh lane, whose sweep finds those behind
/// where it reached: a pass over every record would hold up the records written meanwhile for as long
/// as it reads the table.
///
/// A pass that fails because the database cannot be reached is tried again after a backoff, without
/// giving the lease up: the lease keeper goes on renewing it, and every commit stays fenced by it.
struct WatchSession: Sendable {
    let watcher: Watcher
    /// The runner settings of each pass.
    let configuration: Runner.Configuration
    let plans: [RunPlan]
    let lease: LeaseKeeper
    let mailbox: ChangeMailbox
    /// The store's signals and the claims they restart (`RecordStore/changeSignaling`).
    let signals: any ChangeSignaling
    let outages: OutageLog

    private var store: any WatchableStore { watcher.store }
    private var settings: Watcher.Configuration { watcher.configuration }
    private var logger: Logger { watcher.logger }

    /// Per pipeline, since when the watcher has seen records of it stale without a moment with none.
    private typealias StaleSince = [String: ContinuousClock.Instant]

    /// Watches until the task is cancelled; then ends the run and returns. Throws what no retry mends,
    /// and a lost lease.
    func run() async throws {
        let clock = ContinuousClock()
        var run: RollingRun?
        var backoff = Backoff(maximum: settings.maximumBackoff)
        var staleSince = StaleSince()
        var nextStatus = clock.now
        var nextCount = clock.now
        var interrupted = false
        let lanes = plans.map {
            FreshLane(
                $0, store: store, signals: signals, lease: lease, mailbox: mailbox, lookInterval: settings.freshPassInterval,
                sweepInterval: settings.freshSweepInterval
            )
        }
        // The last ids as the watcher starts, before it counts anything: records written while it
        // counts a backlog of fresh records are already written after it started.
        var lastIDsAtStart = await lastRecordIDs()
        while !Task.isCancelled {
            do {
                if clock.now >= nextCount {
                    interrupted = try await pass(&run, lanes: lanes, staleSince: &staleSince, lastIDs: lastIDsAtStart, clock: clock)
                    lastIDsAtStart = [:]
                    nextCount = clock.now + settings.pollInterval
                } else {
                    interrupted = try await freshPass(&run, lanes: lanes, clock: clock)
                }
                if let current = run, lease.control.gate.isCancelled(current.id) {
                    // `rederive cancel` ended the run, not the watcher: record it so and watch on.
                    try await finish(current, status: .cancelled)
                    run = nil
                    interrupted = false
                }
                if interrupted { break }
                if let current = run, clock.now >= current.ends(quietPeriod: settings.quietPeriod, window: settings.runWindow) {
                    try await finish(current, status: .completed)
                    run = nil
                }
                if clock.now >= nextStatus {
                    try await reportStaleness(staleSince, clock: clock)
                    nextStatus = clock.now + settings.pollInterval
                }
                outages.recovered()
                backoff.reset()
            } catch let error as RederiveError where error.code == .leaseLost {
                try? await finishIfOpen(run, status: .interrupted)
                throw error
            } catch where Task.isCancelled {
                interrupted = true
                break
            } catch where Watcher.isTransient(error) {
                outages.failed("pass", error)
                do {
                    try outages.requireWithinLimit(error)
                } catch {
                    // Recorded as a stopping run's end is: the few seconds a store gives a cancelled task.
                    let open = run
                    let ending = Task { try? await finishIfOpen(open, status: .interrupted) }
                    ending.cancel()
                    await ending.value
                    throw error
                }
                // What the failed pass claimed may be uncommitted: everything is looked at again.
                for lane in lanes { lane.sweepNext() }
                nextCount = clock.now
                guard await Watcher.pause(backoff.next()) else {
                    interrupted = true
                    break
                }
                continue
            }
            var wait = settings.pollInterval
            if let run {
                wait = min(wait, clock.now.duration(to: run.ends(quietPeriod: settings.quietPeriod, window: settings.runWindow)))
            }
            // A lane that skipped a sweep looks again when it is due, signal or not.
            let sweep = lanes.compactMap(\.owedSweep).min()
            if let sweep { wait = min(wait, clock.now.duration(to: sweep)) }
            if await !mailbox.wait(timeout: max(.milliseconds(1), wait)), sweep.map({ clock.now < $0 }) ?? true {
                // No signal for a while: count, as a lost signal would have it.
                nextCount = min(nextCount, clock.now)
            }
        }
        do {
            // This task may be cancelled: the run's end is recorded in a task of its own, which is not.
            let ending = run
            let status: RunStatus = interrupted ? .interrupted : .completed
            try await Task { try await finishIfOpen(ending, status: status) }.value
        } catch {
            // The next run on this database records it as interrupted, with what it committed.
            logger.warning("cannot record the end of the watcher's run", metadata: ["error": "\(error)"])
        }
    }

    /// Derives each pipeline's fresh records written since its lane last looked, in a pass of the
    /// engine's runner, opening the run only when the lane found some. Returns whether a pass was
    /// interrupted (the watcher is stopping).
    private func freshPass(_ run: inout RollingRun?, lanes: [FreshLane], clock: ContinuousClock) async throws -> Bool {
        for lane in lanes {
            switch try await deriveFresh(lane, run: &run, clock: clock) {
            case .stopped: return true
            case .cancelled: return false
            case .proceed: break
            }
        }
        return false
    }

    /// Derives the fresh records of `lane` written since it last looked (and those behind, when its
    /// sweep is due), opening the run only when it found some. A paused or throttled pipeline's fresh
    /// records wait with its backlog; a cancelled run is ended by the session before anything more is
    /// claimed for it. Returns `.stopped` when the watcher is stopping.
    private func deriveFresh(_ lane: FreshLane, run: inout RollingRun?, clock: ContinuousClock) async throws -> ClaimGate.Passage {
        let passage = await lease.control.gate.pass(plan: lane.plan, runID: run?.id)
        guard passage == .proceed else { return passage }
        let claimSize = PipelinePass.claimSize(configuration, store: store)
        let first = try await lane.claimNow(limit: claimSize, byteLimit: max(1, configuration.batchByteLimit / configuration.parallelism))
        if first.isEmpty { return .proceed }
        let current = try await open(&run, pending: first.count, of: lane.plan, clock: clock)
        current.worked(at: clock.now)
        // A claim that came back full may have more behind it: every worker then.
        let records = first.count < claimSize ? first.count : configuration.parallelism
        let interrupted = try await derive(
            lane.plan, records: records, run: current, clock: clock, ahead: ClaimedRecords(first), restartClaims: false
        )
        current.worked(at: clock.now)
        return interrupted ? .stopped : .proceed
    }

    /// Counts the stale records of every plan and derives them, each in a pass of the engine's runner;
    /// returns whether a pass was interrupted (the watcher is stopping).
    /// The last id a fresh backlog drains up to may be given per pipeline in `lastIDs`; otherwise it is
    /// read when the backlog is found.
    private func pass(
        _ run: inout RollingRun?, lanes: [FreshLane], staleSince: inout StaleSince, lastIDs: [String: Int64] = [:],
        clock: ContinuousClock
    ) async throws -> Bool {
        for (plan, lane) in zip(plans, lanes) {
            let pending = try await staleCount(plan)
            let name = plan.pipeline.name
            if pending == 0 {
                staleSince[name] = nil
                watcher.metrics.oldestStaleAge(pipeline: name, seconds: 0)
                continue
            }
            let since = staleSince[name] ?? clock.now
            staleSince[name] = since
            watcher.metrics.oldestStaleAge(pipeline: name, seconds: since.duration(to: clock.now).secondsValue)
            // A paused or throttled watcher opens no run: it waits here until its work may go on.
            if run == nil, await lease.control.gate.pass(plan: plan, runID: nil) == .stopped { return true }
            let current = try await open(&run, pending: pending, of: plan, clock: clock)
            current.worked(at: clock.now)
            // A backlog is drained with the fresh records claimed ahead of it, so that records written
            // meanwhile are not queued behind it. Stale records none of which is in the backlog are the
            // fresh lane's, which finds them from where it reached (and behind, when its sweep is due)
            // rather than in a pass over every record; a few stale records of both kinds are derived at once.
            let interrupted: Bool
            if pending >= settings.backlogThreshold {
                interrupted = try await drain(plan, pending: pending, lane: lane, run: current, lastID: lastIDs[name], clock: clock)
            } else if try await signals.backlogCount(plan) == 0 {
                var opened: RollingRun? = current
                interrupted = try await deriveFresh(lane, run: &opened, clock: clock) == .stopped
            } else {
                interrupted = try await derive(plan, records: pending, run: current, clock: clock)
            }
            current.worked(at: clock.now)
            if interrupted { return true }
        }
        return false
    }

    /// Drains `pending` stale records of `plan` with the fresh records `lane` finds claimed ahead of them.
    ///
    /// A backlog of a logic version's bump is drained as the backlog lane, and the lane claims fresh
    /// records, wherever they are. A backlog of fresh records (a table never derived, or invalidated
    /// whole) is not in that lane, and the lane would find it all, in id order, ahead of the records
    /// written since: it is drained instead as every stale record up to the last id seen now, and the
    /// lane claims only the records after that id ahead of it.
    /// `lastID`, when given, is the last id the watcher saw earlier than now (as it started).
    private func drain(
        _ plan: RunPlan, pending: Int, lane: FreshLane, run: RollingRun, lastID: Int64? = nil, clock: ContinuousClock
    ) async throws -> Bool {
        let backlog = try await signals.backlogCount(plan) ?? pending
        if pending - backlog >= settings.backlogThreshold, let last = try await lastIDOr(lastID, plan), last < .max {
            return try await lane.drainingUpTo(last) {
                try await derive(plan.restricted(to: .all, recordIDs: .min...last), records: pending, run: run, clock: clock, ahead: lane)
            }
        }
        return try await derive(plan.restricted(to: .backlog), records: pending, run: run, clock: clock, ahead: lane)
    }

    /// `lastID`, or the pipeline's last id now when there is none.
    private func lastIDOr(_ lastID: Int64?, _ plan: RunPlan) async throws -> Int64? {
        if let lastID { return lastID }
        return try await signals.lastRecordID(of: plan.pipeline)
    }

    /// Each pipeline's last id now; none for a pipeline whose id cannot be read (the database is out of
    /// reach, say), which reads it again when it finds a backlog.
    private func lastRecordIDs() async -> [String: Int64] {
        var ids: [String: Int64] = [:]
        for plan in plans {
            ids[plan.pipeline.name] = try? await signals.lastRecordID(of: plan.pipeline)
        }
        return ids
    }

    /// How many records of `plan` are stale, from each processor's index counts: the most that any one
    /// of its processors has. A record stale for several processors is counted once only by a pass over
    /// the table (a probe per record and processor, seconds for 100,000 records), which the watcher does
    /// not need: it asks whether anything is stale, and whether it is a backlog.
    private func staleCount(_ plan: RunPlan) async throws -> Int {
        let statuses = try await store.status(of: plan.pipeline)
        return plan.selection.map { index in
            let name = plan.pipeline.processors[index].name
            guard let status = statuses.first(where: { $0.name == name }) else { return 0 }
            return status.stale + (plan.retryFailed ? status.failed : 0)
        }.max() ?? 0
    }

    /// Derives the plan's stale records in one pass of the engine's runner, with the records `ahead`
    /// claims before each of its claims, then lets the plan's claims start from the first record again
    /// unless told not to. Returns whether the pass was interrupted.
    private func derive(
        _ plan: RunPlan, records: Int, run: RollingRun, clock: ContinuousClock, ahead: (any ClaimsAhead)? = nil,
        restartClaims: Bool = true
    ) async throws -> Bool {
        let metrics = watcher.metrics
        let derivation = PipelinePass(
            plan: plan, store: store, lease: lease, configuration: configuration, progress: NoProgress(),
            logger: logger, cancellationGrace: settings.drainTimeout, ahead: ahead,
            committed: { results, outcome, duration in
                run.add(outcome.counts)
                metrics.committed(results, outcome: outcome, duration: duration, plan: plan)
            },
            retried: { operation in metrics.transientRetry(operation: operation) }
        )
        let pacer = configuration.maximumRate.map {
            RatePacer(rate: $0, burst: PipelinePass.claimSize(configuration, store: store), now: clock.now)
        }
        let work = SynchronizedWork(SharedWork(budget: nil, pacer: pacer), clock: clock)
        let interrupted: Bool
        do {
            interrupted = try await derivation.run(records: records, work: work, run: RunState(runID: run.id, total: records, clock: clock))
        } catch {
            // Nothing of the pass is in flight any more: its claims may start from the first record.
            signals.restartClaims(plan, lease: lease.current)
            throw error
        }
        if restartClaims { signals.restartClaims(plan, lease: lease.current) }
        return interrupted
    }

    /// The run open now, or a new one recorded in the store, opened because `pending` records of
    /// `plan`'s pipeline were found stale.
    private func open(_ run: inout RollingRun?, pending: Int, of plan: RunPlan, clock: ContinuousClock) async throws -> RollingRun {
        if let run { return run }
        let counts = plans.map { $0.pipeline.name == plan.pipeline.name ? pending : 0 }
        let started = try await signals.startWatchRun(plans, lease: lease.current, pending: counts)
        let opened = RollingRun(id: started.id, now: clock.now)
        lease.derives(run: started.id)
        run = opened
        logger.info("run started", metadata: [
            "run": "\(started.id)", "pending": "\(started.pending.reduce(0, +))",
            "pipelines": "\(plans.map(\.pipeline.name).joined(separator: ","))", "worker": "\(watcher.worker.description)",
        ])
        return opened
    }

    private func finishIfOpen(_ run: RollingRun?, status: RunStatus) async throws {
        guard let run else { return }
        try await finish(run, status: status)
    }

    /// Records the end of `run` with what its commits counted.
    private func finish(_ run: RollingRun, status: RunStatus) async throws {
        let counts = run.counts
        try await store.finishRun(run.id, status: status, counts: counts, lease: lease.current)
        // Ended: a lease taken from now on rejoins no run.
        lease.derives(run: nil)
        logger.info("run ended", metadata: [
            "run": "\(run.id)", "status": "\(status.rawValue)", "derived": "\(counts.changed)",
            "unchanged": "\(counts.unchanged)", "failed": "\(counts.failed)", "skipped": "\(counts.skipped)",
        ])
    }

    /// Sets the stale-records gauges from the store's counts, and the age of the oldest stale record
    /// as the watcher has seen it: how long records of the pipeline have been stale without a moment
    /// with none.
    private func reportStaleness(_ staleSince: StaleSince, clock: ContinuousClock) async throws {
        for plan in plans {
            for status in try await store.status(of: plan.pipeline) {
                watcher.metrics.staleRecords(pipeline: status.pipeline, processor: status.name, count: status.stale)
            }
            let age = staleSince[plan.pipeline.name].map { $0.duration(to: clock.now).secondsValue } ?? 0
            watcher.metrics.oldestStaleAge(pipeline: plan.pipeline.name, seconds: age)
        }
    }
}
