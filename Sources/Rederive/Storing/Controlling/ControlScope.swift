/// What a pause or a cancel applies to: a pipeline's work, or only the work that derives one of its
/// processors.
///
/// Records are evaluated by every stale processor of a run at once, so a scope that names a processor
/// holds the whole of every run (or watcher pass) that derives it, and no run that does not.
public struct ControlScope: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The pipeline.
    public let pipeline: String
    /// The processor of the pipeline; nil for all of them.
    public let processor: String?

    /// A scope over `pipeline`'s work, or only over the work that derives `processor`.
    public init(pipeline: String, processor: String? = nil) {
        self.pipeline = pipeline
        self.processor = processor
    }

    /// Whether a run, or a pass, of `plan` falls under this scope.
    public func covers(_ plan: RunPlan) -> Bool {
        plan.pipeline.name == pipeline && (processor.map { name in plan.processors.contains { $0.name == name } } ?? true)
    }

    /// Whether a run that derives `processors`, as its history records them, falls under this scope.
    public func covers(processors: [ProcessorVersion]) -> Bool {
        processors.contains { $0.pipeline == pipeline && (processor == nil || $0.name == processor) }
    }

    /// Whether this scope takes in `other`: the same one, or a pipeline's scope and one of its processors'.
    public func contains(_ other: ControlScope) -> Bool {
        pipeline == other.pipeline && (processor == nil || processor == other.processor)
    }

    /// `room_scans`, or `room_scans, processor floor_area`, for messages.
    public var description: String {
        processor.map { "\(pipeline), processor \($0)" } ?? pipeline
    }

    /// The processor as the SQL stores keep it: the empty string for the whole pipeline.
    package var storedProcessor: String { processor ?? "" }

    /// A scope as the SQL stores keep it, with the empty string for the whole pipeline.
    package init(pipeline: String, storedProcessor: String) {
        self.init(pipeline: pipeline, processor: storedProcessor.isEmpty ? nil : storedProcessor)
    }
}
