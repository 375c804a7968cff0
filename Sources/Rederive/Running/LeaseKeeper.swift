import Logging

/// Keeps the store's ``WorkerLease`` for one run: takes it, waiting while another process holds it;
/// renews it while the run derives; takes a new one when a claim or a commit finds it lost; and
/// releases every lease the run held when it ends. Beside the renewal it runs the process's
/// ``RunControl``, so that every run and watcher honours pauses, cancels and throttles within one
/// heartbeat.
///
/// Renewal problems are left to the claims and commits: every commit is fenced by the lease, and a
/// claim that finds it lost takes a new one (``withCurrentLease(pipeline:_:)``).
package struct LeaseKeeper: Sendable {
    private let store: any RecordStore
    private let worker: WorkerIdentity
    private let duration: Duration
    private let logger: Logger
    /// The lease held now, and every lease held before it.
    private let held: HeldLease
    /// Told how each renewal went (nil when it succeeded) instead of a warning logged per failure.
    private let renewed: RenewalObserver?
    /// What holds or ends the work of the process: stored pauses and cancels, and throttles.
    package let control: RunControl

    /// Told how each renewal of the lease went: nil when it succeeded, else the error.
    package typealias RenewalObserver = @Sendable (_ failure: (any Error)?) -> Void

    private init(
        store: any RecordStore, worker: WorkerIdentity, duration: Duration, logger: Logger, lease: WorkerLease,
        renewed: RenewalObserver?, control: RunControl
    ) {
        self.store = store
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
    package static func acquire(
        store: any RecordStore, worker: WorkerIdentity, duration: Duration, pollInterval: Duration,
        progress: any ProgressReporter, logger: Logger, throttles: [Throttle] = [], renewed: RenewalObserver? = nil,
        held: (@Sendable (ClaimHold?) -> Void)? = nil
    ) async throws -> LeaseKeeper? {
        var reported: String?
        while true {
            switch try await store.acquireLease(for: worker, duration: duration) {
            case .acquired(let lease):
                return LeaseKeeper(
                    store: store, worker: worker, duration: duration, logger: logger, lease: lease, renewed: renewed,
                    control: RunControl(store: store, throttles: throttles, logger: logger, observer: held)
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
    package var current: WorkerLease {
        get async { await held.current }
    }

    /// Tells the keeper the run its lease derives, once the store recorded or joined it (nil once it
    /// ended): a lease taken after the old one was lost rejoins that run (``RecordStore/rejoinRun(_:lease:)``).
    package func derives(run runID: Int64?) async {
        await held.derive(run: runID)
    }

    /// Runs `body` while a child task renews the lease every third of its duration, and another
    /// follows the ``control`` (read once before `body` starts), then releases
    /// every lease the run held; when `body` throws, releases them as well as the store lets it.
    package func holding<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        do {
            let result = try await renewing(body)
            for lease in await held.all {
                try await store.releaseLease(lease)
            }
            return result
        } catch {
            for lease in await held.all {
                try? await store.releaseLease(lease)
            }
            throw error
        }
    }

    private func renewing<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        let store = self.store
        let logger = self.logger
        let held = self.held
        let renewed = self.renewed
        let control = self.control
        let interval = duration / 3
        await control.prime()
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                await control.monitor(heartbeat: interval) { await held.current }
                return nil
            }
            group.addTask {
                // A lease found lost is told once: the next claim or commit takes a new one, and until
                // then (the database still out of reach, say) each renewal would fail alike.
                var toldLost: String?
                while true {
                    do {
                        try await Task.sleep(for: interval)
                    } catch {
                        return nil
                    }
                    let lease = await held.current
                    do {
                        try await store.renewLease(lease)
                        renewed?(nil)
                    } catch where Task.isCancelled {
                        // The run has ended: a renewal cut short by it is no failure.
                        return nil
                    } catch let error as RederiveError where error.code == .leaseLost && toldLost == lease.token {
                        continue
                    } catch {
                        if let error = error as? RederiveError, error.code == .leaseLost { toldLost = lease.token }
                        if let renewed {
                            renewed(error)
                        } else {
                            logger.warning("cannot renew the lease", metadata: ["error": "\(error)"])
                        }
                    }
                }
            }
            defer { group.cancelAll() }
            return try await body()
        }
    }

    /// Runs `body` (a claim or a commit) with the lease held now; when the store says that lease was
    /// lost (the process was cut off past its expiry and others took its records over), takes a new
    /// lease, once however many workers ask, and runs `body` again with it. What a claim of the lost
    /// lease held is committed, fenced by the new lease: accepted where the record is still this
    /// process's at the same generation. Rethrows the loss when another process holds the lease now.
    package func withCurrentLease<T: Sendable>(pipeline: String, _ body: @Sendable (WorkerLease) async throws -> T) async throws -> T {
        let lease = await held.current
        do {
            return try await body(lease)
        } catch let error as RederiveError where error.code == .leaseLost && !Task.isCancelled {
            // A run that is stopping has no use for a new lease: it commits nothing more.
            let store = self.store
            let worker = self.worker
            let duration = self.duration
            let runID = await held.runID
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
