import Logging

/// Re-derives exactly the stale records of some pipelines.
///
/// Workers claim batches of stale records from the store, read their payloads on their own, and
/// inflate, decode and derive them one record at a time; a slow record holds up only its own worker.
/// Results stream to one writer, which commits when it holds a batch or about every 100 ms. Each commit
/// is atomic, so an interrupted run loses at most the records in flight and the next run continues with
/// what is still stale.
///
/// ```swift
/// let store = try SQLiteStore(path: "rooms.sqlite")
/// let runner = Runner(store: store, pipelines: [RoomScan.pipeline],
///                     configuration: .init(parallelism: 8), progress: reporter)
/// let summary = try await runner.run()
/// print(summary.counts.failed, "records failed")
/// ```
///
/// A run holds the store's ``WorkerLease`` while it derives. On a store that only one process may
/// derive at a time, a second run waits for the first (reporting ``ProgressEvent/waiting(_:)``) and then
/// derives only what is still stale.
///
/// A run cut off from the database past its lease's expiry loses its claims to other processes; when it
/// is back, its late commits are skipped and it takes a new lease and goes on.
///
/// Only fatal problems throw (the store cannot be read or written, a processor name is unknown, the
/// lease was lost and another process holds the store's lease now). A record that does not inflate, decode or derive becomes a failure of that record
/// and the run goes on. Cancelling the task stops the workers between records; what was derived is
/// committed and the run is recorded as interrupted.
///
/// Pauses, cancels and throttles hold the claims of every run. `rederive pause` (``RunControlling``)
/// stops its workers within one heartbeat of the lease: they derive and commit what they had
/// claimed and wait, keeping the lease, and go on when it is lifted, so the run continues with its
/// counts. `rederive cancel` ends it so, as ``RunStatus/cancelled``. ``Configuration/throttles`` hold
/// it while the database (or the app) says so. The run reports each change as ``ProgressEvent/held(_:)``.
public struct Runner: Sendable {
    /// Where the records are read from and the results committed to.
    public let store: any RecordStore
    /// The pipelines whose stale records the run derives, in order.
    public let pipelines: [Pipeline]
    /// How the run divides and paces its work.
    public let configuration: Configuration
    /// Receives the run's progress events.
    public let progress: any ProgressReporter
    /// Receives the run's log messages: start, end and fatal errors.
    public let logger: Logger
    /// Who this run says it is when it takes the store's lease.
    public var worker = WorkerIdentity.current

    /// Creates a runner; nothing happens until ``run()``.
    ///
    /// - Parameters:
    ///   - store: Where the records are read from and the results committed to.
    ///   - pipelines: The pipelines whose stale records are derived.
    ///   - configuration: How the work is divided and paced.
    ///   - progress: Receives progress events; ``NoProgress`` by default.
    ///   - logger: Receives log messages; none by default.
    public init(
        store: any RecordStore,
        pipelines: [Pipeline],
        configuration: Configuration = Configuration(),
        progress: any ProgressReporter = NoProgress(),
        logger: Logger = Logger(label: "rederive.runner", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.store = store
        self.pipelines = pipelines
        self.configuration = configuration
        self.progress = progress
        self.logger = logger
    }

    /// Derives every pending record and returns how the run went.
    public func run() async throws -> RunSummary {
        try configuration.validate()
        let plans = try makePlans()
        for plan in plans {
            try await store.prepare(plan.pipeline)
        }
        // Every line the run logs names the worker; once the run is recorded, the run and its pipelines too.
        var workerLogger = self.logger
        workerLogger[metadataKey: "worker"] = "\(worker.description)"
        let logger = workerLogger
        let progress = self.progress
        let lease = try await LeaseKeeper.acquire(
            store: store, worker: worker, duration: configuration.leaseDuration, pollInterval: configuration.leasePollInterval,
            progress: progress, logger: logger, throttles: configuration.throttles, held: { progress.report(.held($0)) },
            outageLimit: configuration.outageLimit
        )
        guard let lease else { throw CancellationError() }
        return try await lease.holding { try await runPlans(plans, lease: lease, logger: logger) }
    }

    /// Records a run of `plans`, runs each plan's pipeline that has records pending, in order, and
    /// records how the run ended.
    private func runPlans(_ plans: [RunPlan], lease: LeaseKeeper, logger workerLogger: Logger) async throws -> RunSummary {
        let started = try await store.startRun(plans, lease: lease.current)
        let runID = started.id
        lease.derives(run: runID)
        var logger = workerLogger
        logger[metadataKey: "run"] = "\(runID)"
        logger[metadataKey: "pipeline"] = "\(plans.map(\.pipeline.name).joined(separator: ","))"
        var pending = started.pending.reduce(0, +)
        if let limit = configuration.limit {
            pending = min(pending, limit)
        }
        logger.info("run started", metadata: [
            "run": "\(runID)", "pending": "\(pending)", "pipelines": "\(plans.map(\.pipeline.name).joined(separator: ","))",
            "worker": "\(worker.description)",
        ])
        progress.report(.started(runID: runID, total: pending))

        var state = RunState(runID: runID, total: pending, clock: ContinuousClock())
        // One claim may be taken at once, after a pause too; the rate holds from then on.
        let pacer = configuration.maximumRate.map { RatePacer(rate: $0, burst: claimSize, now: state.start) }
        let work = SynchronizedWork(SharedWork(budget: configuration.limit, pacer: pacer), clock: state.clock)
        let status: RunStatus
        do {
            // A pipeline with nothing pending is not scanned at all: a run with nothing stale costs
            // only the counts of starting it.
            for (plan, pending) in zip(plans, started.pending) where pending > 0 && !work.isExhausted {
                let records = configuration.limit.map { min($0, pending) } ?? pending
                work.beginPipeline()
                var pipelineLogger = logger
                pipelineLogger[metadataKey: "pipeline"] = "\(plan.pipeline.name)"
                try await runPipeline(plan, records: records, lease: lease, work: work, state: &state, logger: pipelineLogger)
                if state.interrupted { break }
            }
            // Workers of a cancelled run end as those of an interrupted one do: with what they committed.
            status = lease.control.gate.isCancelled(runID) ? .cancelled : state.interrupted ? .interrupted : .completed
        } catch {
            logger.error("run failed", metadata: ["run": "\(runID)", "error": "\(error)"])
            // A run asked to stop whose ending failed (the database out of reach) was interrupted, not failed.
            let ending: RunStatus = Task.isCancelled ? .interrupted : .failed
            try? await store.finishRun(runID, status: ending, counts: work.committed, lease: lease.current)
            throw error
        }
        let counts = work.committed
        try await store.finishRun(runID, status: status, counts: counts, lease: lease.current)
        let summary = RunSummary(
            runID: runID, status: status, pending: pending, counts: counts, elapsed: state.elapsed,
            overdue: work.overdue(after: configuration.recordTimeout), projections: work.projections,
            transientRetries: work.transientRetries
        )
        logger.info("run ended", metadata: [
            "run": "\(runID)", "status": "\(status.rawValue)", "derived": "\(counts.changed)",
            "unchanged": "\(counts.unchanged)", "failed": "\(counts.failed)", "skipped": "\(counts.skipped)",
            "transientRetries": "\(summary.transientRetries)",
        ])
        progress.report(.finished(summary))
        return summary
    }

    /// One plan per pipeline that has a processor the configuration selects, after checking the
    /// pipelines and the names selected.
    package func makePlans() throws(RederiveError) -> [RunPlan] {
        _ = try Registry(pipelines)
        let names = configuration.processors
        if let names {
            try pipelines.requireProcessors(named: names.sorted())
        }
        return pipelines.compactMap { pipeline in
            let selection = pipeline.processors.indices.filter { names?.contains(pipeline.processors[$0].name) ?? true }
            guard !selection.isEmpty else { return nil }
            // A deriver works in processes of its own, on payloads: it is given no projection.
            return RunPlan(
                pipeline: pipeline, selection: selection, retryFailed: configuration.retryFailed,
                readsProjections: configuration.readsProjections && configuration.deriver == nil
            )
        }
    }

    /// Records one worker claims at once: the configured or the store's claim, within a batch.
    private var claimSize: Int { PipelinePass.claimSize(configuration, store: store) }

    /// Runs one pipeline's pending records in a ``PipelinePass``.
    private func runPipeline(
        _ plan: RunPlan, records: Int, lease: LeaseKeeper, work: SynchronizedWork, state: inout RunState, logger: Logger
    ) async throws {
        let pass = PipelinePass(
            plan: plan, store: store, lease: lease, configuration: configuration, progress: progress, logger: logger
        )
        state.interrupted = try await pass.run(records: records, work: work, run: state)
    }
}
