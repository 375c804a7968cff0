import RederiveCodec

/// Derives stale records and compares the results with what is stored, writing nothing: no values,
/// stamps, failures or run record. The preview to look at before a new logic version reaches production.
///
/// ```swift
/// let store = try SQLiteStore(path: "rooms.sqlite")
/// let report = try await DryRun(store: store, pipelines: [RoomScan.pipeline], sample: 500).run()
/// for column in report.columns where column.changed > 0 {
///     print(column.column, column.changed, "would change")
/// }
/// ```
///
/// The database must already be prepared for the pipelines (a `run` did it once); a dry run does not
/// add the columns or triggers that preparation would.
public struct DryRun: Sendable {
    /// The store the records are read from; nothing is written to it.
    public let store: any RecordStore & StoredValueReading
    /// The pipelines whose stale records are derived.
    public let pipelines: [Pipeline]
    /// Which processors, how many records at once, and the payload size limit, as for a ``Runner``.
    public let configuration: Runner.Configuration
    /// Derive at most this many pending records, the first in id order; all when nil.
    public let sample: Int?

    /// Creates a preview of what a run with `configuration` would change.
    ///
    /// - Parameters:
    ///   - store: A store already prepared for the pipelines.
    ///   - pipelines: The pipelines to preview.
    ///   - configuration: The run's settings: processors, retries, limit, parallelism, payload size limit.
    ///   - sample: Derive only the first this many stale records, in id order; all when nil.
    public init(
        store: any RecordStore & StoredValueReading,
        pipelines: [Pipeline],
        configuration: Runner.Configuration = Runner.Configuration(),
        sample: Int? = nil
    ) {
        self.store = store
        self.pipelines = pipelines
        self.configuration = configuration
        self.sample = sample
    }

    /// Derives the pending records in memory and compares each value with the stored one.
    ///
    /// - Returns: Per column, how many values would change and how; the failures a run would record.
    /// - Throws: ``RederiveError`` when the configuration is invalid or the database is not prepared for a
    ///   pipeline; the store's errors when it cannot be read.
    public func run() async throws -> DryRunReport {
        try await run(observing: { _ in })
    }

    /// Derives the pending records in memory like ``run()``, and shows `observe` every derived value
    /// beside the stored one, in record order: for reports that chart or rank the values themselves.
    public func run(observing observe: (ValueComparison) -> Void) async throws -> DryRunReport {
        try configuration.validate()
        if let sample, sample < 1 {
            throw RederiveError(.invalidArgument, "sample must be at least 1, not \(sample)")
        }
        let runner = Runner(store: store, pipelines: pipelines, configuration: configuration)
        let plans = try runner.makePlans()
        for plan in plans where try await store.needsPreparation(plan.pipeline) {
            throw RederiveError(
                .schemaMismatch,
                "the database is not prepared for pipeline \"\(plan.pipeline.name)\"; a dry run writes nothing, so prepare it first with `rederive run`"
            )
        }
        var report = DryRunReport()
        var budget = sample ?? configuration.limit
        let codec = PayloadCodec(maximumSize: configuration.maximumPayloadSize)
        let threads = WorkerThreads(count: configuration.parallelism, name: "rederive dry run")
        defer { threads.stop() }
        // A preview commits nothing: it reads as many records at once as a run's first batch holds.
        let readSize = configuration.batchSize ?? Runner.Configuration.initialBatchSize
        for plan in plans {
            report.pending += try await store.staleCount(plan)
            var tally = ColumnTally(pipeline: plan.pipeline, rules: store.storageRules)
            var cascades: [Int: Int] = [:]
            var cursor: Int64?
            while budget.map({ $0 > 0 }) ?? true {
                let limit = budget.map { min($0, readSize) } ?? readSize
                let batch = try await store.staleRecords(plan, after: cursor, limit: limit, byteLimit: configuration.batchByteLimit)
                guard let last = batch.last else { break }
                cursor = last.recordID
                budget = budget.map { $0 - batch.count }
                let pipeline = plan.pipeline
                let results = await threads.map(batch) { RecordResult(evaluating: $0, pipeline: pipeline, codec: codec) }
                let stored = try await store.storedRows(of: plan.pipeline, recordIDs: batch.map(\.recordID))
                for (record, result) in zip(batch, results) {
                    if let error = result.valueCountError(in: plan.pipeline) { throw error }
                    report.examined += 1
                    report.failures += tally.add(result, stored: stored[result.recordID], observe: observe)
                    let stale = Set(record.staleProcessors)
                    for (processor, _) in result.outcomes where !stale.contains(processor) {
                        cascades[processor, default: 0] += 1
                    }
                }
            }
            report.columns += tally.summaries()
            report.cascades += plan.pipeline.graph.order.compactMap { index in
                cascades[index].map { DryRunReport.Cascade(pipeline: plan.pipeline.name, processor: plan.pipeline.processors[index].name, records: $0) }
            }
        }
        return report
    }
}
