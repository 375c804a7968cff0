import Logging
import Rederive
import ServiceLifecycle

/// Derives records as they become stale, until it is stopped: `rederive watch`, and a `Service` that
/// an app puts in its own `ServiceGroup` beside its other services.
///
/// ```swift
/// let watcher = Watcher(store: try SQLiteStore(path: "rooms.sqlite"), pipelines: [recipes])
/// let group = ServiceGroup(services: [watcher], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
/// try await group.run()
/// ```
///
/// It derives new records, payloads another program replaced, and records made stale by a new
/// build's logic versions or by `invalidate`, with the engine's runner: the same lease, claims, workers
/// and writer as `rederive run`, so every guarantee of a run holds (nothing committed twice, a
/// replaced payload never stored with old values). Whenever the store signals a commit
/// (`ChangeSignaling`) it derives the records written since it last looked; it counts and derives
/// every stale record when it starts and every ``Configuration/pollInterval``. While a backlog drains
/// (a logic version's), records written meanwhile are claimed ahead of it, in the same stream.
///
/// **History.** A watcher records runs as `rederive run` does, one run per busy period: a run starts
/// when the watcher finds records to derive, and ends once it has found nothing for
/// ``Configuration/quietPeriod``, or when it has lasted ``Configuration/runWindow``. A logic version's
/// backlog is one run (or one per window), steady traffic one run per window; `history`,
/// `failures --run` and `rollback` read them as any other run.
///
/// **Stopping.** A graceful shutdown of its service group (SIGTERM, SIGINT) stops the claims,
/// commits the records in flight (waiting ``Configuration/drainTimeout`` at most), ends the run,
/// releases the lease and returns. Cancelling the task does the same.
///
/// **Outages.** While the database cannot be reached the watcher keeps running: ``health`` reads not
/// ready, it tries again after a wait that doubles up to ``Configuration/maximumBackoff`` (with
/// jitter), and the outage is logged once when it starts and once when it ends (by the store, when
/// it logs its outages itself, as PostgreSQL's does). Only errors no retry can
/// mend end it: an unknown processor name, a processor that returns the wrong number of values.
public struct Watcher: Service {
    /// Where records are read from and results committed to.
    public let store: any WatchableStore
    /// The pipelines whose records are kept derived.
    public let pipelines: [Pipeline]
    /// How the watcher works.
    public let configuration: Configuration
    /// Whether the watcher can work now: the database reachable and the lease held.
    public let health: WatchHealth
    /// Where the watcher reports its figures.
    public let metrics: WatchMetrics
    /// Receives the watcher's log messages: runs, outages, failures.
    public let logger: Logger
    /// Who the watcher says it is when it takes the store's lease.
    public var worker = WorkerIdentity.current

    /// Creates a watcher; nothing happens until ``run()``.
    ///
    /// - Parameters:
    ///   - store: Where the records are read from and results committed to.
    ///   - pipelines: The pipelines whose records are kept derived.
    ///   - configuration: How the work is divided, changes looked for, runs recorded.
    ///   - health: Updated as the watcher works, for a readiness check; a new one by default.
    ///   - metrics: Where figures go; the process's bootstrapped metrics backend by default.
    ///   - logger: Receives log messages; none by default.
    public init(
        store: any WatchableStore,
        pipelines: [Pipeline],
        configuration: Configuration = Configuration(),
        health: WatchHealth = WatchHealth(),
        metrics: WatchMetrics = WatchMetrics(),
        logger: Logger = Logger(label: "rederive.watch", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.store = store
        self.pipelines = pipelines
        self.configuration = configuration
        self.health = health
        self.metrics = metrics
        self.logger = logger
    }

    /// Watches until a graceful shutdown or cancellation, then stops as described above and returns.
    /// Throws only what no retry can mend.
    public func run() async throws {
        try await watch()
    }

    private func watch() async throws {
        try configuration.validate()
        guard let signals = store.changeSignaling else {
            throw RederiveError(.invalidArgument, "the store cannot be watched: it does not signal changes")
        }
        var runnerConfiguration = configuration.runner
        runnerConfiguration.limit = nil
        runnerConfiguration.outageLimit = configuration.outageLimit
        let plans = try Runner(store: store, pipelines: pipelines, configuration: runnerConfiguration).makePlans()
        metrics.buildInfo(version: RederiveVersion.current)
        metrics.leaseHeld(false)
        let outages = OutageLog(
            logger: logger, metrics: metrics, health: health, storeLogsOutages: store.logsOutages, limit: configuration.outageLimit
        )
        let mailbox = ChangeMailbox.listening(to: signals.changeSignals(checkingEvery: configuration.signalInterval))
        defer { mailbox.stop() }
        var backoff = Backoff(maximum: configuration.maximumBackoff)
        while !Task.isCancelled {
            do {
                for plan in plans {
                    try await store.prepare(plan.pipeline)
                }
                outages.recovered()
                backoff.reset()
                // Waiting for the lease ends with a graceful shutdown; nothing is held yet.
                guard let lease = try await cancelWhenGracefulShutdown({ try await self.acquireLease(outages: outages) }) else {
                    return
                }
                leaseHeld(true)
                logger.info("watching", metadata: [
                    "pipelines": "\(plans.map(\.pipeline.name).joined(separator: ","))", "worker": "\(worker.description)",
                ])
                let session = WatchSession(
                    watcher: self, configuration: runnerConfiguration, plans: plans, lease: lease, mailbox: mailbox,
                    signals: signals, outages: outages
                )
                do {
                    // A graceful shutdown cancels the session's passes, not this task: ending the run and
                    // releasing the lease then go through as any statement does (a store may refuse to
                    // start statements in a cancelled task).
                    try await lease.holding { try await Self.untilGracefulShutdown { try await session.run() } }
                } catch {
                    leaseHeld(false)
                    throw error
                }
                leaseHeld(false)
                logger.info("stopped watching", metadata: ["worker": "\(worker.description)"])
                return
            } catch let error as RederiveError where error.code == .leaseLost {
                // Another process took the lease over while this one was cut off: wait to take it again.
                logger.warning("the lease was lost to another process; waiting to take it again", metadata: [
                    "worker": "\(worker.description)",
                ])
            } catch where Task.isCancelled {
                return
            } catch where Self.isTransient(error) {
                outages.failed("lease", error)
                try outages.requireWithinLimit(error)
                guard await Self.pause(backoff.next()) else { return }
            }
        }
    }

    /// Takes the store's lease, waiting while another process holds it; nil when cancelled meanwhile.
    private func acquireLease(outages: OutageLog) async throws -> LeaseKeeper? {
        let health = self.health
        let metrics = self.metrics
        return try await LeaseKeeper.acquire(
            store: store, worker: worker, duration: configuration.runner.leaseDuration,
            pollInterval: configuration.runner.leasePollInterval, progress: NoProgress(), logger: logger,
            throttles: configuration.runner.throttles,
            renewed: { failure in
                guard let failure else {
                    outages.recovered()
                    return
                }
                if let error = failure as? RederiveError, error.code == .leaseLost {
                    health.leaseHeld(false)
                    metrics.leaseHeld(false)
                } else {
                    outages.failed("heartbeat", failure)
                }
            },
            outageLimit: configuration.outageLimit
        )
    }

    private func leaseHeld(_ held: Bool) {
        health.leaseHeld(held)
        metrics.leaseHeld(held)
    }

    /// Whether retrying may mend `error`: the database could not be reached or answered with an
    /// error. A wrong name, a processor's mistake or a lost lease are not.
    static func isTransient(_ error: any Error) -> Bool {
        if error is CancellationError { return false }
        guard let error = error as? RederiveError else { return true }
        return error.code == .database
    }

    /// Runs `body` in a task of its own, cancelled when a graceful shutdown is triggered or this task
    /// is cancelled, and returns what it returns.
    static func untilGracefulShutdown(_ body: @escaping @Sendable () async throws -> Void) async throws {
        let task = Task { try await body() }
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                try await task.value
            } onGracefulShutdown: {
                task.cancel()
            }
        } onCancel: {
            task.cancel()
        }
    }

    /// Sleeps `duration`; false when cancelled or shut down gracefully meanwhile.
    static func pause(_ duration: Duration) async -> Bool {
        (try? await cancelWhenGracefulShutdown { try await Task.sleep(for: duration) }) != nil
    }
}
