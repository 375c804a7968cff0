import Logging
import RederiveCodec
import Synchronization

/// Re-derives exactly the stale records of some pipelines.
///
/// Three stages overlap: while the workers derive one batch, the store commits the previous one
/// and reads the next. Each batch commits atomically, so an interrupted run loses at most the
/// batches in flight and the next run continues with what is still stale.
///
/// ```swift
/// let store = try SQLiteStore(path: "rooms.sqlite")
/// let runner = Runner(store: store, pipelines: [RoomScan.pipeline],
///                     configuration: .init(parallelism: 8), progress: reporter)
/// let summary = try await runner.run()
/// print(summary.counts.failed, "records failed")
/// ```
///
/// Only fatal problems throw (the store cannot be read or written, a processor name is unknown).
/// A record that does not inflate, decode or derive becomes a failure of that record and the run
/// goes on. Cancelling the task stops the run between records; what was derived is committed and
/// the run is recorded as interrupted.
public struct Runner: Sendable {
    public let store: any RecordStore
    public let pipelines: [Pipeline]
    public let configuration: Configuration
    public let progress: any ProgressReporter
    public let logger: Logger

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
        var pendingByPlan: [Int] = []
        for plan in plans {
            pendingByPlan.append(try await store.pendingCount(plan))
        }
        var pending = pendingByPlan.reduce(0, +)
        if let limit = configuration.limit {
            pending = min(pending, limit)
        }

        let versions = plans.flatMap { plan in
            plan.processors.map { ProcessorVersion(pipeline: plan.pipeline.name, name: $0.name, version: $0.version) }
        }
        let runID = try await store.startRun(processors: versions)
        logger.info("run started", metadata: ["run": "\(runID)", "pending": "\(pending)"])
        progress.report(.started(runID: runID, total: pending))

        var state = RunState(runID: runID, total: pending, budget: configuration.limit, clock: ContinuousClock())
        let status: RunStatus
        do {
            // A pipeline with nothing pending is not scanned at all: a run with nothing stale costs
            // only the index counts above.
            for (plan, pending) in zip(plans, pendingByPlan) where pending > 0 && !state.isExhausted {
                try await derive(plan, state: &state)
                if state.interrupted { break }
            }
            status = state.interrupted ? .interrupted : .completed
        } catch {
            logger.error("run failed", metadata: ["run": "\(runID)", "error": "\(error)"])
            try? await store.finishRun(runID, status: .failed, counts: state.counts)
            throw error
        }
        try await store.finishRun(runID, status: status, counts: state.counts)
        let summary = RunSummary(runID: runID, status: status, pending: pending, counts: state.counts, elapsed: state.elapsed)
        logger.info("run ended", metadata: [
            "run": "\(runID)", "status": "\(status.rawValue)", "derived": "\(state.counts.derived)",
            "unchanged": "\(state.counts.unchanged)", "failed": "\(state.counts.failed)", "skipped": "\(state.counts.skipped)",
        ])
        progress.report(.finished(summary))
        return summary
    }

    func makePlans() throws(RederiveError) -> [RunPlan] {
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

    /// Reads, derives and commits one pipeline's pending records, the three stages overlapping.
    private func derive(_ plan: RunPlan, state: inout RunState) async throws {
        let store = self.store
        // A paced run commits about a second's worth of records at a time, so progress stays live.
        let batchSize = configuration.maximumRate.map { max(1, min(configuration.batchSize, Int($0))) } ?? configuration.batchSize
        let byteLimit = configuration.batchByteLimit
        var batch = try await store.pendingRecords(plan, after: nil, limit: state.nextBatchSize(batchSize), byteLimit: byteLimit)
        var uncommitted: [RecordResult] = []
        while !batch.isEmpty {
            if Task.isCancelled {
                state.interrupted = true
                break
            }
            state.take(batch.count)
            let cursor = batch[batch.count - 1].recordID
            let nextLimit = state.nextBatchSize(batchSize)
            async let nextBatch = nextLimit > 0
                ? store.pendingRecords(plan, after: cursor, limit: nextLimit, byteLimit: byteLimit) : []
            let previous = uncommitted
            async let committed = store.commit(previous, plan: plan, runID: state.runID)
            let results = if let deriver = configuration.deriver {
                await deriver.derive(batch, pipeline: plan.pipeline, maximumPayloadSize: configuration.maximumPayloadSize)
            } else {
                await deriveConcurrently(batch, pipeline: plan.pipeline)
            }
            let counts = try await committed
            state.record(counts, pipeline: plan.pipeline.name, progress: progress)
            batch = try await nextBatch
            uncommitted = results
            if results.count < state.lastTaken {
                // Cancelled while deriving: what was derived is committed below, the rest stays stale.
                state.interrupted = true
                break
            }
            if try await !pace(state) {
                state.interrupted = true
                break
            }
        }
        let counts = try await store.commit(uncommitted, plan: plan, runID: state.runID)
        state.record(counts, pipeline: plan.pipeline.name, progress: progress)
    }

    /// Sleeps as long as the maximum rate requires; false when cancelled meanwhile.
    private func pace(_ state: RunState) async throws -> Bool {
        guard let rate = configuration.maximumRate else { return true }
        let due = Duration.seconds(Double(state.taken) / rate)
        let ahead = due - state.elapsed
        guard ahead > .zero else { return true }
        do {
            try await Task.sleep(for: ahead)
            return true
        } catch is CancellationError {
            return false
        }
    }

    private func deriveConcurrently(_ batch: [PendingRecord], pipeline: Pipeline) async -> [RecordResult] {
        await Self.deriveConcurrently(
            batch,
            pipeline: pipeline,
            codec: PayloadCodec(maximumSize: configuration.maximumPayloadSize),
            parallelism: configuration.parallelism
        )
    }

    /// Inflates, decodes and derives a batch on `parallelism` workers that take records one at a time,
    /// so a large payload does not hold up a whole share of the batch. Results keep the batch's order.
    /// When the task is cancelled the workers stop taking records and the results end early.
    static func deriveConcurrently(
        _ batch: [PendingRecord], pipeline: Pipeline, codec: PayloadCodec, parallelism: Int
    ) async -> [RecordResult] {
        let next = WorkCursor()
        let workers = min(parallelism, batch.count)
        let slots = await withTaskGroup(of: [(Int, RecordResult)].self) { group in
            for _ in 0..<workers {
                group.addTask {
                    var produced: [(Int, RecordResult)] = []
                    while !Task.isCancelled {
                        let index = next.take()
                        guard index < batch.count else { break }
                        produced.append((index, derive(batch[index], pipeline: pipeline, codec: codec)))
                    }
                    return produced
                }
            }
            var slots = [RecordResult?](repeating: nil, count: batch.count)
            for await produced in group {
                for (index, result) in produced {
                    slots[index] = result
                }
            }
            return slots
        }
        return slots.compactMap { $0 }
    }

    /// Everything that happens to one record between reading and committing it: inflate, decode,
    /// run its stale processors. Never throws; every problem is a failure outcome.
    public static func derive(_ record: PendingRecord, pipeline: Pipeline, codec: PayloadCodec) -> RecordResult {
        func failingAll(_ kind: FailureKind, _ message: String, digest: Int64) -> RecordResult {
            RecordResult(
                recordID: record.recordID,
                generation: record.generation,
                payloadDigest: digest,
                outcomes: record.staleProcessors.map { ($0, .failed(kind, message)) }
            )
        }
        guard let payload = record.payload else {
            return failingAll(.decompression, "payload is NULL", digest: 0)
        }
        let digest = PayloadCodec.digest(payload)
        let json: [UInt8]
        do {
            json = try codec.decode(payload)
        } catch {
            return failingAll(.decompression, error.message, digest: digest)
        }
        let outcomes = pipeline.evaluate(json: json, selection: record.staleProcessors)
        return RecordResult(
            recordID: record.recordID,
            generation: record.generation,
            payloadDigest: digest,
            outcomes: Array(zip(record.staleProcessors, outcomes)).map { (processor: $0.0, outcome: $0.1) }
        )
    }
}

/// Hands out record indices to the workers of one batch.
private final class WorkCursor: Sendable {
    private let position = Atomic<Int>(0)

    func take() -> Int {
        position.wrappingAdd(1, ordering: .relaxed).oldValue
    }
}

/// What a run has done so far.
private struct RunState {
    let runID: Int64
    let total: Int
    /// Records the run may still take, when it is limited.
    var budget: Int?
    let clock: ContinuousClock
    let start: ContinuousClock.Instant
    var counts = RunCounts()
    var taken = 0
    var lastTaken = 0
    var interrupted = false

    init(runID: Int64, total: Int, budget: Int?, clock: ContinuousClock) {
        self.runID = runID
        self.total = total
        self.budget = budget
        self.clock = clock
        self.start = clock.now
    }

    var elapsed: Duration { clock.now - start }

    var isExhausted: Bool { budget == 0 }

    func nextBatchSize(_ batchSize: Int) -> Int {
        budget.map { min($0, batchSize) } ?? batchSize
    }

    mutating func take(_ count: Int) {
        taken += count
        lastTaken = count
        budget = budget.map { $0 - count }
    }

    mutating func record(_ committed: RunCounts, pipeline: String, progress: any ProgressReporter) {
        guard committed.total > 0 else { return }
        counts += committed
        progress.report(.advanced(.init(
            runID: runID, pipeline: pipeline, done: counts.total, total: total, counts: counts, elapsed: elapsed
        )))
    }
}
