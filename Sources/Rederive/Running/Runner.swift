import Dispatch
import Logging
import RederiveCodec
import Synchronization

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
        guard let lease = try await acquireLease() else {
            throw CancellationError()
        }
        let held = HeldLease(lease)
        do {
            let summary = try await withLease(held) { try await deriveStale(plans, lease: held) }
            for lease in await held.all {
                try await store.releaseLease(lease)
            }
            return summary
        } catch {
            for lease in await held.all {
                try? await store.releaseLease(lease)
            }
            throw error
        }
    }

    /// Takes the store's lease, waiting while another process holds it; nil when cancelled meanwhile.
    private func acquireLease() async throws -> WorkerLease? {
        var reported: String?
        while true {
            switch try await store.acquireLease(for: worker, duration: configuration.leaseDuration) {
            case .acquired(let lease):
                return lease
            case .held(let holder):
                if reported != holder.worker {
                    reported = holder.worker
                    logger.notice("waiting for another run", metadata: ["holder": "\(holder.worker)"])
                    progress.report(.waiting(holder))
                }
                do {
                    try await Task.sleep(for: configuration.leasePollInterval)
                } catch {
                    return nil
                }
            }
        }
    }

    /// Runs `body` while a child task renews the lease. Renewal problems are left to the commits and
    /// claims: every commit is fenced by the lease, and a claim that finds it lost takes a new one.
    private func withLease<T: Sendable>(_ held: HeldLease, _ body: @Sendable () async throws -> T) async throws -> T {
        let store = self.store
        let logger = self.logger
        let interval = configuration.leaseDuration / 3
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                while true {
                    do {
                        try await Task.sleep(for: interval)
                    } catch {
                        return nil
                    }
                    do {
                        try await store.renewLease(await held.current)
                    } catch {
                        logger.warning("cannot renew the lease", metadata: ["error": "\(error)"])
                    }
                }
            }
            defer { group.cancelAll() }
            return try await body()
        }
    }

    private func deriveStale(_ plans: [RunPlan], lease: HeldLease) async throws -> RunSummary {
        let started = try await store.startRun(plans, lease: await lease.current)
        let runID = started.id
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
        let shared = SharedWork(budget: configuration.limit, pacer: pacer, clock: state.clock)
        let status: RunStatus
        do {
            // A pipeline with nothing pending is not scanned at all: a run with nothing stale costs
            // only the counts of starting it.
            for (plan, pending) in zip(plans, started.pending) where pending > 0 && !shared.isExhausted {
                let records = configuration.limit.map { min($0, pending) } ?? pending
                try await derivePipeline(plan, records: records, lease: lease, shared: shared, state: &state)
                if state.interrupted { break }
            }
            status = state.interrupted ? .interrupted : .completed
        } catch {
            logger.error("run failed", metadata: ["run": "\(runID)", "error": "\(error)"])
            try? await store.finishRun(runID, status: .failed, counts: shared.committed, lease: await lease.current)
            throw error
        }
        let counts = shared.committed
        try await store.finishRun(runID, status: status, counts: counts, lease: await lease.current)
        let summary = RunSummary(
            runID: runID, status: status, pending: pending, counts: counts, elapsed: state.elapsed,
            overdue: shared.overdue(after: configuration.recordTimeout)
        )
        logger.info("run ended", metadata: [
            "run": "\(runID)", "status": "\(status.rawValue)", "derived": "\(counts.derived)",
            "unchanged": "\(counts.unchanged)", "failed": "\(counts.failed)", "skipped": "\(counts.skipped)",
        ])
        progress.report(.finished(summary))
        return summary
    }

    func makePlans() throws(RederiveError) -> [RunPlan] {
        _ = try Registry(pipelines)
        let names = configuration.processors
        if let names {
            try pipelines.requireProcessors(named: names.sorted())
        }
        return pipelines.compactMap { pipeline in
            let selection = pipeline.processors.indices.filter { names?.contains(pipeline.processors[$0].name) ?? true }
            guard !selection.isEmpty else { return nil }
            return RunPlan(pipeline: pipeline, selection: selection, retryFailed: configuration.retryFailed)
        }
    }

    /// What the tasks of one pipeline's derivation end with.
    private enum TaskEnd: Sendable {
        case worker(interrupted: Bool)
        case writer
    }

    /// Records committed at once: the configured batch, but no more than the maximum rate's second.
    private var batchSize: Int {
        configuration.maximumRate.map { max(1, Int(min(Double(configuration.batchSize), $0))) } ?? configuration.batchSize
    }

    /// Records one worker claims at once: the configured or the store's claim, within a batch.
    private var claimSize: Int {
        max(1, min(batchSize, configuration.claimSize ?? store.preferredClaimSize))
    }

    /// Derives one pipeline's pending records: `parallelism` workers claim, read and derive; the writer
    /// commits what they send. No more workers (and threads) start than the `records` pending when the
    /// run started: a worker beyond them would find nothing to derive.
    private func derivePipeline(_ plan: RunPlan, records: Int, lease: HeldLease, shared: SharedWork, state: inout RunState) async throws {
        let batchSize = self.batchSize
        let workers = max(1, min(configuration.parallelism, records))
        let channel = ResultChannel(capacity: 2 * batchSize)
        let claimSize = self.claimSize
        // Every worker holds one claimed batch of payloads at most: together they stay within the byte limit.
        let claimBytes = max(1, configuration.batchByteLimit / workers)
        let run = state
        let threads = WorkerThreads(count: workers, name: "rederive worker")
        defer { threads.stop() }
        let interrupted = try await withThrowingTaskGroup(of: TaskEnd.self) { group in
            for index in 0..<workers {
                group.addTask {
                    let interrupted = try await work(
                        index, plan, lease: lease, claimSize: claimSize, claimBytes: claimBytes, shared: shared, channel: channel,
                        thread: threads.threads[index]
                    )
                    return .worker(interrupted: interrupted)
                }
            }
            group.addTask {
                do {
                    try await write(plan, lease: lease, batchSize: batchSize, channel: channel, shared: shared, run: run)
                    return .writer
                } catch {
                    channel.close()
                    throw error
                }
            }
            var running = workers
            var interrupted = false
            do {
                while let end = try await group.next() {
                    switch end {
                    case .worker(let stopped):
                        interrupted = interrupted || stopped
                        running -= 1
                        if running == 0 { channel.finish() }
                    case .writer:
                        break
                    }
                }
            } catch {
                // A worker or the writer failed: the writer must not wait for results that will never come.
                channel.close()
                throw error
            }
            return interrupted
        }
        state.interrupted = interrupted
    }

    /// One worker: takes the next claimed record that no worker has started, derives it and sends the
    /// result to the writer; when few claimed records are left and no other worker is claiming, claims
    /// the next batch from the store first. Goes on until nothing is left, the budget is spent, or the
    /// run is cancelled; returns whether it was cancelled.
    ///
    /// Records of a claim are shared by all workers, so a record that takes long (or hangs) holds up
    /// only the worker deriving it, never the rest of its batch; and one worker reads the next batch
    /// while the others still derive, so reading and deriving overlap.
    private func work(
        _ index: Int, _ plan: RunPlan, lease: HeldLease, claimSize: Int, claimBytes: Int,
        shared: SharedWork, channel: ResultChannel, thread: DerivationThread
    ) async throws -> Bool {
        let codec = PayloadCodec(maximumSize: configuration.maximumPayloadSize)
        let deriver = configuration.deriver
        while true {
            if Task.isCancelled { return true }
            let record: PendingRecord
            switch shared.nextStep(refillBelow: configuration.parallelism) {
            case .derive(let next):
                record = next
            case .claim:
                // This worker refills the shared claims while the others go on deriving.
                let (wanted, wait) = shared.take(upTo: claimSize)
                if await !pace(wait) {
                    shared.claimed([], wanted: wanted, exhausted: false)
                    return true
                }
                var batch: [PendingRecord] = []
                do {
                    if wanted > 0 {
                        let store = self.store
                        batch = try await withHeldLease(lease, plan) { held in
                            try await store.claim(plan, limit: wanted, byteLimit: claimBytes, lease: held)
                        }
                    }
                } catch {
                    shared.claimed([], wanted: wanted, exhausted: true)
                    throw error
                }
                shared.claimed(batch, wanted: wanted, exhausted: batch.isEmpty)
                continue
            case .wait(let claimsFinished):
                // Another worker's claim is under way and will bring records, or say there are none.
                await shared.waitForClaim(after: claimsFinished)
                continue
            case .done:
                return false
            }
            shared.started(record.recordID, worker: index)
            // Once cancelled, a record in flight gets this long to be committed, however long the
            // timeout: the run must end soon after it is asked to.
            let grace = min(configuration.recordTimeout ?? Self.cancellationGrace, Self.cancellationGrace)
            let derived: RecordResult?
            if let deriver {
                // A deriver's worker that hangs must not hold up a cancelled run beyond the grace either.
                let pipeline = plan.pipeline
                let maximumPayloadSize = configuration.maximumPayloadSize
                derived = await Waiter.result(within: grace) {
                    await deriver.derive(record, pipeline: pipeline, maximumPayloadSize: maximumPayloadSize, worker: index)
                }
            } else {
                // The thread goes on to the next claimed records itself, rather than come back to this
                // task for each one: a hand-off per record costs two thread switches, as much as
                // deriving a small record without its payload.
                let end = await thread.run(grace: grace) { isCancelled in
                    deriveSeries(from: record, plan, worker: index, codec: codec, shared: shared, channel: channel, isCancelled: isCancelled)
                }
                switch end {
                case .sent?: continue
                case .unsent(let result)?: derived = result
                case nil: derived = nil
                }
            }
            // Abandoned when the run was cancelled: the record stays stale, and overdue if it hangs.
            guard let result = derived else { return true }
            shared.finished(worker: index)
            await channel.send(result)
        }
    }

    /// Runs `body` (a claim or a commit) with the lease held now; when the store says that lease was
    /// lost (the process was cut off past its expiry and others took its records over), takes a new
    /// lease and runs `body` again with it. What a claim of the lost lease held is committed, fenced
    /// by the new lease: accepted where the record is still this process's at the same generation.
    private func withHeldLease<T: Sendable>(
        _ held: HeldLease, _ plan: RunPlan, _ body: @Sendable (WorkerLease) async throws -> T
    ) async throws -> T {
        let lease = await held.current
        do {
            return try await body(lease)
        } catch let error as RederiveError where error.code == .leaseLost {
            let store = self.store
            let worker = self.worker
            let duration = configuration.leaseDuration
            guard let fresh = try await held.replace(lease, acquire: { try await store.acquireLease(for: worker, duration: duration) }) else {
                throw error
            }
            logger.warning("the lease was lost and its records taken over; deriving on with a new lease", metadata: [
                "worker": "\(worker.description)", "pipeline": "\(plan.pipeline.name)",
            ])
            return try await body(fresh)
        }
    }

    /// How a worker's thread ended a series of records.
    private enum SeriesEnd: Sendable {
        /// Every result went to the writer.
        case sent
        /// The last result did not, because the channel was full or the run was cancelled: the task
        /// sends it, or drops it when it gave up on the thread.
        case unsent(RecordResult)
    }

    /// Derives `first`, then the claimed records after it, one after the other on the worker's thread,
    /// handing each result to the writer as it is made. Stops when this worker must claim
    /// (``SharedWork/nextStep(refillBelow:)``), when nothing claimed is left to start, or when the run is
    /// cancelled. Records are taken one at a time, as by the task: a record that hangs holds up only its
    /// own worker, and each record in flight is visible to ``SharedWork/overdue(after:)``.
    private func deriveSeries(
        from first: PendingRecord, _ plan: RunPlan, worker: Int, codec: PayloadCodec, shared: SharedWork, channel: ResultChannel,
        isCancelled: () -> Bool
    ) -> SeriesEnd {
        var record = first
        while true {
            let result = RecordResult(deriving: record, pipeline: plan.pipeline, codec: codec)
            // Once the run is cancelled, the task decides whether this result is still committed.
            if isCancelled() || !channel.trySend(result) { return .unsent(result) }
            guard let next = shared.finishedTakingNext(worker: worker, refillBelow: configuration.parallelism) else { return .sent }
            record = next
        }
    }

    /// The one writer: commits results as they arrive, a batch at a time or about every 100 ms, and
    /// reports progress after each commit. Ends when every worker is done and everything is committed.
    private func write(
        _ plan: RunPlan, lease: HeldLease, batchSize: Int, channel: ResultChannel, shared: SharedWork, run: RunState
    ) async throws {
        var reportedOverdue: [Int64] = []
        while true {
            let received = await channel.receive(
                upTo: batchSize, idleUntil: run.clock.now + .seconds(1), fillWithin: configuration.commitInterval
            )
            let overdue = shared.overdue(after: configuration.recordTimeout)
            switch received {
            case .finished:
                return
            case .idle:
                // Nothing to commit, but a record that has hung should still show.
                if overdue.map(\.recordID) != reportedOverdue {
                    run.report(pipeline: plan.pipeline.name, progress: progress, counts: shared.committed, overdue: overdue)
                }
                if Task.isCancelled {
                    // A cancelled task's sleeps end at once: pause without one while the workers stop.
                    await pause(.milliseconds(20))
                }
            case .results(let results):
                if let error = results.lazy.compactMap({ $0.valueCountError(in: plan.pipeline) }).first {
                    throw error
                }
                let store = self.store
                let counts = try await withHeldLease(lease, plan) { held in
                    try await store.commit(results, plan: plan, runID: run.runID, lease: held)
                }
                shared.commit(counts)
                log(committed: results, counts: counts, plan: plan, runID: run.runID)
                run.report(pipeline: plan.pipeline.name, progress: progress, counts: shared.committed, overdue: overdue)
            }
            reportedOverdue = overdue.map(\.recordID)
        }
    }

    /// Logs a commit at debug level, and each failure it recorded at info level, with the run, pipeline,
    /// processor and record as metadata.
    private func log(committed results: [RecordResult], counts: RunCounts, plan: RunPlan, runID: Int64) {
        let pipeline = plan.pipeline
        logger.debug("committed", metadata: [
            "run": "\(runID)", "pipeline": "\(pipeline.name)", "records": "\(results.count)",
            "derived": "\(counts.derived)", "unchanged": "\(counts.unchanged)", "failed": "\(counts.failed)",
            "skipped": "\(counts.skipped)",
        ])
        guard logger.logLevel <= .info else { return }
        for result in results {
            for (processor, outcome) in result.outcomes {
                guard case .failed(let kind, let message) = outcome else { continue }
                logger.info("record failed", metadata: [
                    "run": "\(runID)", "pipeline": "\(pipeline.name)", "processor": "\(pipeline.processors[processor].name)",
                    "record": "\(result.recordID)", "kind": "\(kind.rawValue)", "message": "\(message)",
                ])
            }
        }
    }

    /// Waits `duration` whether or not the task is cancelled.
    private func pause(_ duration: Duration) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(duration.secondsValue * 1000))) {
                continuation.resume()
            }
        }
    }

    /// The longest a cancelled run waits for a record in flight before it leaves it uncommitted.
    static let cancellationGrace: Duration = .seconds(10)

    /// Sleeps the `wait` that the maximum rate requires before a claim; false when cancelled meanwhile.
    private func pace(_ wait: Duration) async -> Bool {
        guard wait > .zero else { return true }
        do {
            try await Task.sleep(for: wait)
            return true
        } catch {
            return false
        }
    }
}

/// A run's identity and clock, and whether it was interrupted.
private struct RunState: Sendable {
    let runID: Int64
    let total: Int
    let clock: ContinuousClock
    let start: ContinuousClock.Instant
    var interrupted = false

    init(runID: Int64, total: Int, clock: ContinuousClock) {
        self.runID = runID
        self.total = total
        self.clock = clock
        self.start = clock.now
    }

    var elapsed: Duration { clock.now - start }

    func report(pipeline: String, progress: any ProgressReporter, counts: RunCounts, overdue: [InFlightRecord]) {
        progress.report(.advanced(.init(
            runID: runID, pipeline: pipeline, done: counts.total, total: total, counts: counts, elapsed: elapsed,
            overdue: overdue
        )))
    }
}

