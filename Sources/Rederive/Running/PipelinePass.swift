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
    /// The longest a cancelled pass waits for a record in flight.
    let cancellationGrace: Duration
    /// Asked before each claim for records to derive ahead of the plan's own, when set.
    let ahead: (any ClaimsAhead)?

    /// A pass of `plan`'s records, under `lease`, divided and paced by `configuration`; the records
    /// `ahead` claims, when set, before each claim of the plan's own.
    package init(
        plan: RunPlan, store: any RecordStore, lease: LeaseKeeper, configuration: Runner.Configuration,
        progress: any ProgressReporter, logger: Logger, cancellationGrace: Duration = ClaimingWorker.cancellationGrace,
        ahead: (any ClaimsAhead)? = nil, committed: ResultWriter.CommitObserver? = nil
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
    }

    /// Records committed at once: the configured batch, but no more than the maximum rate's second.
    package static func batchSize(_ configuration: Runner.Configuration) -> Int {
        configuration.maximumRate.map { max(1, Int(min(Double(configuration.batchSize), $0))) } ?? configuration.batchSize
    }

    /// Records one worker claims at once: the configured or the store's claim, within a batch.
    package static func claimSize(_ configuration: Runner.Configuration, store: any RecordStore) -> Int {
        max(1, min(batchSize(configuration), configuration.claimSize ?? store.preferredClaimSize))
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
        let batchSize = Self.batchSize(configuration)
        let workers = max(1, min(configuration.parallelism, records))
        let channel = ResultChannel(capacity: 2 * batchSize)
        let worker = ClaimingWorker(
            plan: plan, runID: run.runID, store: store, lease: lease, work: work, channel: channel,
            claimSize: Self.claimSize(configuration, store: store),
            // Every worker holds one claimed batch of payloads at most: together they stay within the byte limit.
            claimBytes: max(1, configuration.batchByteLimit / workers),
            refillBelow: configuration.parallelism, recordTimeout: configuration.recordTimeout,
            maximumPayloadSize: configuration.maximumPayloadSize, deriver: configuration.deriver,
            cancellationGrace: cancellationGrace, ahead: ahead
        )
        let ahead = self.ahead
        let committed = self.committed
        let observer: ResultWriter.CommitObserver? = ahead == nil ? committed : { @Sendable results, counts, duration in
            ahead?.committed(results)
            committed?(results, counts, duration)
        }
        let writer = ResultWriter(
            plan: plan, store: store, lease: lease, work: work, channel: channel, batchSize: batchSize,
            commitInterval: configuration.commitInterval, recordTimeout: configuration.recordTimeout, run: run,
            progress: progress, logger: logger, committed: observer
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
