import Logging

/// One pipeline's derivation within a run: `workers` ``ClaimingWorker``s claim, read and evaluate, and
/// one ``ResultWriter`` commits what they send, until nothing pending is left to claim, the budget is
/// spent, or the task is cancelled.
///
/// A plain run makes one pass per pipeline; a watcher makes a pass each time records become stale.
package struct PipelinePass: Sendable {
    /// What the pass derives.
    package let plan: RunPlan
    let store: any RecordStore
    let lease: LeaseKeeper
    let configuration: Runner.Configuration
    let progress: any ProgressReporter
    let logger: Logger
    /// Told of every commit, with its results, what it counted and how long the batch took.
    let committed: ResultWriter.CommitObserver?
    /// Told of every claim or commit tried again after a transient error, with the operation.
    let retried: (@Sendable (String) -> Void)?
    /// The longest a cancelled pass waits for a record in flight.
    let cancellationGrace: Duration
    /// Asked before each claim for records to derive ahead of the plan's own, when set.
    let ahead: (any ClaimsAhead)?

    /// A pass of `plan`'s records, under `lease`, divided and paced by `configuration`; the records
    /// `ahead` claims, when set, before each claim of the plan's own.
    package init(
        plan: RunPlan, store: any RecordStore, lease: LeaseKeeper, configuration: Runner.Configuration,
        progress: any ProgressReporter, logger: Logger, cancellationGrace: Duration = ClaimingWorker.cancellationGrace,
        ahead: (any ClaimsAhead)? = nil, committed: ResultWriter.CommitObserver? = nil,
        retried: (@Sendable (String) -> Void)? = nil
    ) {
        self.plan = plan
        self.store = store
        self.lease = lease
        self.configuration = configuration
        self.progress = progress
        self.logger = logger
        self.cancellationGrace = cancellationGrace
        self.ahead = ahead
        self.committed = committed
        self.retried = retried
    }

    /// How the pass sizes its batches: fixed at the configured size, or toward the configured (else the
    /// store's) target duration within the configured bounds; never beyond the maximum rate's second.
    package static func batchSizer(_ configuration: Runner.Configuration, store: any RecordStore) -> BatchSizer {
        let perSecond = configuration.maximumRate.map { max(1, Int(min($0, 1e9))) } ?? Int.max
        if let fixed = configuration.batchSize {
            return BatchSizer(fixed: min(fixed, perSecond))
        }
        let most = max(1, min(configuration.batchSizeBounds.upperBound, perSecond))
        let least = min(configuration.batchSizeBounds.lowerBound, most)
        return BatchSizer(
            target: configuration.targetBatchDuration ?? store.preferredBatchDuration, bounds: least...most,
            initial: Runner.Configuration.initialBatchSize
        )
    }

    /// Records one worker claims at once at the most: the configured or the store's claim, within the
    /// largest batch. A claim is also never larger than the batch being sized at the time.
    package static func claimSize(_ configuration: Runner.Configuration, store: any RecordStore) -> Int {
        max(1, min(batchSizer(configuration, store: store).bounds.upperBound, configuration.claimSize ?? store.preferredClaimSize))
    }

    /// What the tasks of one pass end with.
    private enum TaskEnd: Sendable {
        case worker(interrupted: Bool)
        case writer
    }

    /// Derives the plan's pending records with `work`, counting commits there and reporting progress
    /// against `run`; returns whether the pass was interrupted. No more workers (and threads) start
    /// than the `records` pending when the pass started: a worker beyond them would find nothing to
    /// evaluate.
    package func run(records: Int, work: SynchronizedWork, run: RunState) async throws -> Bool {
        let batchSize = SharedBatchSize(Self.batchSizer(configuration, store: store))
        let workers = max(1, min(configuration.parallelism, records))
        let retried = self.retried
        let retry = TransientRetry(
            limit: configuration.outageLimit, logger: logger, storeLogsOutages: store.logsOutages
        ) { operation, _ in
            work.retried()
            retried?(operation)
        }
        let channel = ResultChannel(capacity: 2 * batchSize.maximum)
        let worker = ClaimingWorker(
            plan: plan, runID: run.runID, store: store, lease: lease, work: work, channel: channel, batchSize: batchSize,
            claimSize: Self.claimSize(configuration, store: store),
            // Every worker holds one claimed batch of payloads at most: together they stay within the byte limit.
            claimBytes: max(1, configuration.batchByteLimit / workers),
            refillBelow: configuration.parallelism, recordTimeout: configuration.recordTimeout,
            maximumPayloadSize: configuration.maximumPayloadSize, deriver: configuration.deriver, retry: retry,
            cancellationGrace: cancellationGrace, ahead: ahead
        )
        let ahead = self.ahead
        let committed = self.committed
        let observer: ResultWriter.CommitObserver? = ahead == nil ? committed : { @Sendable results, outcome, duration in
            ahead?.committed(results)
            committed?(results, outcome, duration)
        }
        let writer = ResultWriter(
            plan: plan, store: store, lease: lease, work: work, channel: channel, batchSize: batchSize,
            commitInterval: configuration.commitInterval, recordTimeout: configuration.recordTimeout, run: run,
            progress: progress, logger: logger, retry: retry, committed: observer
        )
        let threads = WorkerThreads(count: workers, name: "rederive worker")
        defer { threads.stop() }
        return try await withThrowingTaskGroup(of: TaskEnd.self) { group in
            for index in 0..<workers {
                group.addTask {
                    let interrupted = try await worker.run(worker: index, thread: threads.threads[index])
                    return .worker(interrupted: interrupted)
                }
            }
            group.addTask {
                do {
                    try await writer.write()
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
    }
}
