/// A processor of one pipeline, by name: what a ``SchemaMigration`` makes stale.
///
/// A migration names the pipeline as well as the processor, since two pipelines may each have a
/// processor of one name, and a change to one's table says nothing about the other's values. Names are
/// not checked against the pipelines: a migration stays valid after the processor it once invalidated
/// is renamed or removed, and then invalidates nothing.
public struct ProcessorReference: Sendable, Hashable {
    /// The pipeline's name.
    public let pipeline: String
    /// The processor's name in that pipeline.
    public let processor: String

    /// The processor `processor` of the pipeline named `pipeline`.
    public init(pipeline: String, processor: String) {
        self.pipeline = pipeline
        self.processor = processor
    }

    /// The processor named `name` of `pipeline`.
    public static func processor(_ name: String, of pipeline: Pipeline) -> ProcessorReference {
        ProcessorReference(pipeline: pipeline.name, processor: name)
    }

    /// The processor named `name` of the pipeline named `pipeline`.
    public static func processor(_ name: String, of pipeline: String) -> ProcessorReference {
        ProcessorReference(pipeline: pipeline, processor: name)
    }
}
