/// The pipelines an executable knows, checked for conflicts when they are registered.
///
/// ```swift
/// var registry = Registry()
/// try registry.register(RoomScan.pipeline)
/// ```
///
/// Registration rejects, with a message naming both sides: two pipelines with one name or one table,
/// two processors with one name in one pipeline, and two processors that claim the same output column.
/// It also rejects a processor that reads a processor of another pipeline, a column its input does not
/// have or has with another type, and processors that read each other in a cycle, named in order.
/// Stamps and failures are keyed by pipeline and processor, so two pipelines may each have a processor
/// of the same name.
///
/// ``Runner``, ``DryRun`` and ``Verifier`` check their pipelines the same way, so an app that calls them
/// directly gets the same protection.
public struct Registry: Sendable {
    /// The registered pipelines, in registration order.
    public private(set) var pipelines: [Pipeline] = []

    /// An empty registry.
    public init() {}

    /// A registry of `pipelines`, registered in order.
    ///
    /// - Throws: ``RederiveError/Code-swift.enum/invalidRegistration`` naming the first conflict.
    public init(_ pipelines: [Pipeline]) throws(RederiveError) {
        for pipeline in pipelines {
            try register(pipeline)
        }
    }

    /// Adds a pipeline after checking it against itself and every pipeline registered before.
    ///
    /// - Throws: ``RederiveError/Code-swift.enum/invalidRegistration`` when a name, table or column is
    ///   claimed twice, or a processor is invalid; the registry is then unchanged.
    public mutating func register(_ pipeline: Pipeline) throws(RederiveError) {
        try Self.validate(pipeline)
        for existing in pipelines {
            if existing.name == pipeline.name {
                throw RederiveError(.invalidRegistration, "pipeline name \"\(pipeline.name)\" is registered twice")
            }
            if existing.table == pipeline.table {
                throw RederiveError(
                    .invalidRegistration,
                    "pipelines \"\(existing.name)\" and \"\(pipeline.name)\" both read table \"\(pipeline.table)\"; give one pipeline all of that table's processors"
                )
            }
        }
        pipelines.append(pipeline)
    }

    /// The pipeline with this name.
    public func pipeline(named name: String) throws(RederiveError) -> Pipeline {
        guard let pipeline = pipelines.first(where: { $0.name == name }) else {
            let known = pipelines.map(\.name).joined(separator: ", ")
            throw RederiveError(.unknownName, "no pipeline named \"\(name)\" (registered: \(known))")
        }
        return pipeline
    }

    private static func validate(_ pipeline: Pipeline) throws(RederiveError) {
        var processorNames: Set<String> = []
        var owners: [String: String] = [:]
        var reserved: Set<String> = [pipeline.idColumn]
        if pipeline.layout == .inline {
            reserved.insert(pipeline.payloadColumn)
            if let key = pipeline.keyColumn { reserved.insert(key) }
        }
        if pipeline.processors.isEmpty {
            throw RederiveError(.invalidRegistration, "pipeline \"\(pipeline.name)\" has no processors")
        }
        for processor in pipeline.processors {
            guard processorNames.insert(processor.name).inserted else {
                throw RederiveError(
                    .invalidRegistration,
                    "pipeline \"\(pipeline.name)\" has two processors named \"\(processor.name)\""
                )
            }
            if processor.name.isEmpty || processor.columns.isEmpty {
                throw RederiveError(
                    .invalidRegistration,
                    "processor \"\(processor.name)\" of pipeline \"\(pipeline.name)\" needs a name and at least one column"
                )
            }
            for column in processor.columns {
                if reserved.contains(column.name) {
                    throw RederiveError(
                        .invalidRegistration,
                        "processor \"\(processor.name)\" claims column \"\(column.name)\", which is the table's id, key or payload column"
                    )
                }
                if let owner = owners[column.name.lowercased()] {
                    throw RederiveError(
                        .invalidRegistration,
                        "processors \"\(owner)\" and \"\(processor.name)\" both claim column \"\(column.name)\""
                    )
                }
                owners[column.name.lowercased()] = processor.name
            }
        }
        if let problem = ProcessorGraph.problem(in: pipeline) {
            throw RederiveError(.invalidRegistration, problem)
        }
    }
}
