import Rederive

/// What a store's preparation of a pipeline depends on: its tables, columns, processors and
/// projection. A store that prepared a pipeline with the same key in this process has nothing to
/// look for again.
package struct PreparedPipeline: Hashable, Sendable {
    let name: String
    let table: String
    let idColumn: String
    let keyColumn: String?
    let payloadColumn: String
    let layout: Pipeline.Layout
    let processors: [ProcessorDescriptor]
    let projectionVersion: Int?

    package init(_ pipeline: Pipeline) {
        name = pipeline.name
        table = pipeline.table
        idColumn = pipeline.idColumn
        keyColumn = pipeline.keyColumn
        payloadColumn = pipeline.payloadColumn
        layout = pipeline.layout
        processors = pipeline.processors
        projectionVersion = pipeline.projectionVersion
    }
}
