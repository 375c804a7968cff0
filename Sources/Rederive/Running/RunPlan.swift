/// What one run derives for one pipeline: which of its processors, and whether known failures are retried.
public struct RunPlan: Sendable {
    /// The pipeline whose records are derived.
    public let pipeline: Pipeline
    /// Indices into `pipeline.processors` of the processors this run brings up to date, in index order:
    /// those asked for, every processor that reads them, and every processor those read.
    public let selection: [Int]
    /// Whether records that already failed at the current version and payload are tried again.
    public let retryFailed: Bool
    /// Whether a store hands out a record's current projection instead of its payload: the pipeline
    /// declares a ``Projection`` and the run did not ask to derive from payloads.
    public let readsProjections: Bool
    /// Which of the stale records the plan derives: all of them, or one of the two lanes a watcher
    /// drains side by side.
    public let lane: StaleLane
    /// The ids of the records the plan derives: every id by default. A watcher draining the records
    /// that were stale when it looked derives those up to the last id it saw, and claims the records
    /// written since ahead of them, after that id. Claims and reads of pending records keep to these
    /// ids; ``RecordStore/staleCount(_:)`` counts, from the store's counts, every id.
    public let recordIDs: ClosedRange<Int64>
    /// The selected processors that read the payload.
    private let payloadReaders: Set<Int>
    /// The selected processors that derive from other processors.
    public let dependents: [Int]
    /// The processors whose stored values the selected dependents read, in index order: a store hands
    /// them out in ``DependencyState/storedValues``.
    public let dependencyColumns: [Int]

    /// A plan for one pipeline.
    ///
    /// Selecting a processor selects its dependents too, so that no value is left derived from inputs
    /// that changed, and the inputs of everything selected, so that no dependent derives from stale
    /// inputs.
    ///
    /// - Parameters:
    ///   - pipeline: The pipeline whose records are derived.
    ///   - selection: Indices into `pipeline.processors` of the processors to bring up to date; all when nil.
    ///   - retryFailed: Whether records that already failed at the current version and payload are tried again.
    ///   - readsProjections: Whether stored projections serve instead of payloads, where the pipeline keeps them.
    ///   - lane: Which of the stale records the plan derives; all of them by default.
    ///   - recordIDs: The ids of the records the plan derives; every id by default.
    public init(
        pipeline: Pipeline, selection: [Int]? = nil, retryFailed: Bool = false, readsProjections: Bool = true,
        lane: StaleLane = .all, recordIDs: ClosedRange<Int64> = .everyID
    ) {
        self.pipeline = pipeline
        self.readsProjections = readsProjections && pipeline.projectionVersion != nil
        let graph = pipeline.graph
        if let selection {
            let closed = graph.upstream(of: Array(graph.downstream(of: selection)))
            self.selection = closed.sorted()
        } else {
            self.selection = Array(pipeline.processors.indices)
        }
        self.retryFailed = retryFailed
        self.lane = lane
        self.recordIDs = recordIDs
        payloadReaders = Set(self.selection.filter { pipeline.processors[$0].readsPayload })
        // Stores ask for these for every record they read: worked out once.
        dependents = self.selection.filter { !graph.inputs[$0].isEmpty }
        dependencyColumns = Set(dependents.flatMap { graph.inputs[$0] }).sorted()
    }

    /// The same plan for `lane`'s records.
    public func restricted(to lane: StaleLane) -> RunPlan {
        restricted(to: lane, recordIDs: recordIDs)
    }

    /// The same plan for `lane`'s records among those whose ids are in `recordIDs`.
    public func restricted(to lane: StaleLane, recordIDs: ClosedRange<Int64>) -> RunPlan {
        RunPlan(
            pipeline: pipeline, selection: selection, retryFailed: retryFailed, readsProjections: readsProjections, lane: lane,
            recordIDs: recordIDs
        )
    }

    /// Whether the plan derives records of some ids only (``recordIDs``).
    public var isRangeOfIDs: Bool {
        recordIDs != .everyID
    }

    /// The selected processors.
    public var processors: [ProcessorDescriptor] {
        selection.map { pipeline.processors[$0] }
    }

    /// The processors whose current failures a store hands out in ``DependencyState/failures``: the
    /// dependents and what they read, unless the run retries failures (they are then stale). Empty for
    /// a plan without dependents.
    public var failuresDependentsNeed: [Int] {
        let dependents = self.dependents
        guard !retryFailed, !dependents.isEmpty else { return [] }
        return Set(dependencyColumns + dependents).sorted()
    }

    /// Whether deriving a record stale for `stale` may read its payload: whether a processor that
    /// reads it is stale, or reads a stale processor's values directly or not. When not, a store hands
    /// the record out without reading its payload.
    public func readsPayload(stale: [Int]) -> Bool {
        pipeline.graph.downstream(of: stale).contains(where: payloadReaders.contains)
    }

    /// Whether a record stale for `stale` needs the stored values of ``dependencyColumns``: not when
    /// the plan has no dependents, nor when every processor they read is stale and derived anew.
    public func needsStoredValues(stale: [Int]) -> Bool {
        let inputs = dependencyColumns
        return !inputs.isEmpty && !inputs.allSatisfy(stale.contains)
    }

    /// What the dependents need of a record stale for `stale`, from what a store read of it: every
    /// dependent not stale watches its inputs, and digests them as the store holds values (`rules`).
    /// Empty for a plan without dependents.
    public func dependencyState(
        stale: [Int], storedValues: [Int: [DerivedValue]], consumedDigests: [Int: Int64], failures: [Int: FailureKind],
        storageRules rules: StorageRules
    ) -> DependencyState {
        let dependents = self.dependents
        guard !dependents.isEmpty else { return DependencyState(storageRules: rules) }
        let stale = Set(stale)
        return DependencyState(
            watching: dependents.filter { !stale.contains($0) }, storedValues: storedValues,
            consumedDigests: consumedDigests, failures: failures, storageRules: rules
        )
    }
}

extension ClosedRange<Int64> {
    /// Every record id: a plan's ``RunPlan/recordIDs`` unless it derives some ids only.
    public static var everyID: ClosedRange<Int64> { Int64.min...Int64.max }
}
