/// What one run derives for one pipeline: which of its processors, and whether known failures are retried.
public struct RunPlan: Sendable {
    /// The pipeline whose records are derived.
    public let pipeline: Pipeline
    /// Indices into `pipeline.processors` of the processors this run brings up to date.
    public let selection: [Int]
    /// Whether records that already failed at the current version and payload are tried again.
    public let retryFailed: Bool

    /// A plan for one pipeline.
    ///
    /// - Parameters:
    ///   - pipeline: The pipeline whose records are derived.
    ///   - selection: Indices into `pipeline.processors` of the processors to bring up to date; all when nil.
    ///   - retryFailed: Whether records that already failed at the current version and payload are tried again.
    public init(pipeline: Pipeline, selection: [Int]? = nil, retryFailed: Bool = false) {
        self.pipeline = pipeline
        self.selection = selection ?? Array(pipeline.processors.indices)
        self.retryFailed = retryFailed
    }

    /// The selected processors.
    public var processors: [ProcessorDescriptor] {
        selection.map { pipeline.processors[$0] }
    }
}
