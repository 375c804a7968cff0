import Logging

/// Keeps the store's ``WorkerLease`` for one run: takes it, waiting while another process holds it;
/// renews it while the run derives; takes a new one when a claim or a commit finds it lost; and
/// releases every lease the run held when it ends. Beside the renewal it runs the process's
/// ``RunControl``, so that every run and watcher honours pauses, cancels and throttles within one
/// heartbeat.
///
/// Renewal problems are left to the claims and commits: every commit is fenced by the lease, and a
/// claim that finds it lost takes a new one (``withCurrentLease(pipeline:_:)``). The heartbeat is
/// also the run's watch on the outage limit: when no renewal has succeeded for longer than it, the
/// run is stopped (given the few seconds a stopping run has to commit and record its end) and ends
/// with ``RederiveError/Code-swift.enum/outage``, whichever path waits, so that nothing waits for
/// ever. Failed renewals are logged as one outage (``OutageReport``), unless the store logs its own.
package struct LeaseKeeper: Sendable {
    private let store: any RecordStore
    private let worker: WorkerIdentity
    private let duration: Duration
    private let logger: Logger
    /// The lease held now, and every lease held before it.
    private let held: HeldLease
    /// Told how each renewal went (nil when it succeeded) instead of the outage being logged here.
    private let renewed: RenewalObserver?
    /// How long renewals may fail in a row before the run is ended; nil for no end.
    private let outageLimit: Duration?
    /// Logs failed renewals as one outage; nil when the store logs its outages itself.
    private let outages: OutageReport?
    /// What holds or ends the work of the process: stored pauses and cancels, and throttles.
    package let control: RunControl

    /// Told how each renewal of the lease went: nil when it succeeded, else the error.
    package typealias RenewalObserver = @Sendable (_ failure: (any Error)?) -> Void

    private init(
        store: any RecordStore, worker: WorkerIdentity, duration: Duration, logger: Logger, lease: WorkerLease,
        renewed: RenewalObserver?, control: RunControl, outageLimit: Duration?
    ) {
        self.store = store
        self.outageLimit = outageLimit
        let storeLogsOutages = store.logsOutages
        outages = storeLogsOutages ? nil : OutageReport(logger: logger)
        self.worker = worker
        self.duration = duration
        self.logger = logger
        self.renewed = renewed
        self.control = control
        held = HeldLease(lease)
    }

    /// Takes the store's lease for `worker`, waiting while another process holds it and asking again
    /// every `pollInterval`; reports each new holder it waits for. Nil when cancelled meanwhile.
    /// `renewed`, when set, is told how each renewal went, and no renewal failure is logged.
    /// `throttles` hold the claims while they say so, and `held` is told what holds them as it changes.
    /// `outageLimit` ends the run once renewals have failed for that long (nil: never).
    package static func acquire(
        store: any RecordStore, worker: WorkerIdentity, duration: Duration, pollInterval: Duration,
        progress: any ProgressReporter, logger: Logger, throttles: [Throttle] = [], renewed: RenewalObserver? = nil,
        held: (@Sendable (ClaimHold?) -> Void)? = nil, outageLimit: Duration? = Runner.Configuration.defaultOutageLimit
    ) async throws -> LeaseKeeper? {
        var reported: String?
        while true {
            switch try await store.acquireLease(for: worker, duration: duration) {
            case .acquired(let lease):
                return LeaseKeeper(
                    store: store, worker: worker, duration: duration, logger: logger, lease: lease, renewed: renewed,
                    control: RunControl(store: store, throttles: throttles, logger: logger, observer: held),
                    outageLimit: outageLimit
                )
            case .held(let holder):
                if reported != holder.worker {
                    reported = holder.worker
                    logger.notice("waiting for another run", metadata: ["holder": "\(holder.worker)"])
                    progress.report(.waiting(holder))
                }
                do {
                    try await Task.sleep(for: pollInterval)
                } catch {
                    return nil
                }
            }
        }
    }

    /// The lease held now.
    package var current: WorkerLease { held.current }

    /// Tells the keeper the run its lease derives, once the store recorded or joined it (nil once it
    /// ended): a lease taken after the old one was lost rejoins that run (``RecordStore/rejoinRun(_:lease:)``).
    package func derives(run runID: Int64?) {
        held.derive(run: runID)
    }

    /// Runs `body` while a child task renews the lease every third of its duration, and another
    /// follows the ``control`` (read once before `body` starts), then releases
    /// every lease the run held; when `body` throws, releases them as well as the store lets it.
    /// Past the outage limit, `body` is cancelled and the leases released as a stopping run's are
    /// (a store gives a cancelled task's statements a few seconds), and the limit's error is thrown.
    package func holding<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        do {
            let result = try await renewing(body)
            for lease in held.all {
                try await store.releaseLease(lease)
            }
            return result
        } catch {
            let leases = held.all
            let store = self.store
            let release = Task {
                for lease in leases {
                    try? await store.releaseLease(lease)
                }
            }
            // A stopping run, and a database out of reach past the limit, give the release what a
            // store gives a cancelled task's statements (a few seconds), not more: a release that waited
            // for a link that is down would hold up the end of a run asked to stop.
            if Task.isCancelled || (error as? RederiveError)?.code == .outage { release.cancel() }
            await release.value
            throw error
        }
    }

    private func renewing<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let store = self.store
        let logger = self.logger
        let held = self.held
        let renewed = self.renewed
        let control = self.control
        let outageLimit = self.outageLimit
        let outages = self.outages
        let interval = duration / 3
        await control.prime()
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                await control.monitor(heartbeat: interval) { held.current }
                return nil
            }
            group.addTask {
                // A lease found lost is told once: the next claim or commit takes a new one, and until
                // then each renewal would fail alike.
                var toldLost: String?
                var failingSince: ContinuousClock.Instant?
                while true {
                    // Past the limit, the next look at it comes no later than the limit itself.
                    let wait: Duration = if let since = failingSince, let outageLimit {
                        max(.zero, min(interval, ContinuousClock.now.duration(to: since + outageLimit)))
                    } else {
                        interval
                    }
                    do {
                        try await Task.sleep(for: wait)
                    } catch {
                        return nil
                    }
                    let attempt = ContinuousClock.now
                    let lease = held.current
                    do {
                        try await store.renewLease(lease)
                        failingSince = nil
                        outages?.reached(since: attempt)
                        renewed?(nil)
                    } catch where Task.isCancelled {
                        // The run has ended: a renewal cut short by it is no failure.
                        return nil
                    } catch let error as RederiveError where error.code == .leaseLost {
                        // The server answered (or the lease was given up here): no outage; the claims
                        // take a new lease.
                        failingSince = nil
                        outages?.reached(since: attempt)
                        guard toldLost != lease.token else { continue }
                        toldLost = lease.token
                        renewed?(error)
                        logger.debug("cannot renew the lease", metadata: ["error": "\(error)"])
                    } catch {
                        let since = failingSince ?? attempt
                        failingSince = since
                        if let renewed {
                            renewed(error)
                        } else if let outages {
                            outages.failed("\(error)", since: attempt)
                        }
                        logger.debug("cannot renew the lease", metadata: ["error": "\(error)"])
                        if let outageLimit, OutageLimit.passed(outageLimit, since: since) {
                            throw OutageLimit.exceeded(outageLimit, lastError: error)
                        }
                    }
                }
            }
            group.addTask { try await body() }
            defer { group.cancelAll() }
            // The body's end, or the first error of any: the heartbeat's past the outage limit cancels the body.
            while let ended = try await group.next() {
                if let value = ended { return value }
            }
            throw CancellationError()
        }
    }

    /// Runs `body` (a claim or a commit) with the lease held now; when the store says that lease was
    /// lost (the process was cut off past its expiry and others took its records over), takes a new
    /// lease, once however many workers ask, and runs `body` again with it. What a claim of the lost
    /// lease held is committed, fenced by the new lease: accepted where the record is still this
    /// process's at the same generation. Rethrows the loss when another process holds the lease now.
    package func withCurrentLease<T: Sendable>(pipeline: String, _ body: @Sendable (WorkerLease) async throws -> T) async throws -> T {
        let lease = held.current
        do {
            return try await body(lease)
        } catch let error as RederiveError where error.code == .leaseLost && !Task.isCancelled {
            // A run that is stopping has no use for a new lease: it commits nothing more.
            let store = self.store
            let worker = self.worker
            let duration = self.duration
            let runID = held.runID
            // The new lease rejoins the run before anything is claimed or committed under it. Taking it
            // fails while the database is out of reach: the caller's retry waits and asks again.
            guard let fresh = try await held.replace(lease, acquire: {
                let acquisition = try await store.acquireLease(for: worker, duration: duration)
                if case .acquired(let fresh) = acquisition, let runID {
                    try await store.rejoinRun(runID, lease: fresh)
                }
                return acquisition
            }) else {
                throw error
            }
            logger.warning("the lease was lost and its records taken over; deriving on with a new lease", metadata: [
                "worker": "\(worker.description)", "pipeline": "\(pipeline)",
            ])
            return try await body(fresh)
        }
    }
}
