import Rederive

/// The quoted names and SQL fragments one pipeline's statements are built from, in a store's dialect.
package struct PipelineTables<Dialect: SQLDialect>: Sendable {
    /// The pipeline whose tables these are.
    package let pipeline: Pipeline
    /// The pipeline's table, quoted.
    package let table: String
    /// The record id column, quoted.
    package let id: String
    /// The key column, quoted; nil when the pipeline has none.
    package let key: String?
    /// The payload column, quoted.
    package let payload: String
    /// The table that holds derived columns (the companion table, or the pipeline's own), quoted.
    package let destination: String
    /// The destination's id column, quoted.
    package let destinationID: String
    /// The pipeline's table name as a string literal, the `source` of its bookkeeping rows.
    package let source: String

    /// The names of `pipeline`'s tables and columns.
    package init(_ pipeline: Pipeline) {
        self.pipeline = pipeline
        table = Dialect.identifier(pipeline.table)
        id = Dialect.identifier(pipeline.idColumn)
        key = pipeline.keyColumn.map(Dialect.identifier)
        payload = Dialect.identifier(pipeline.payloadColumn)
        source = Dialect.literal(pipeline.table)
        switch pipeline.layout {
        case .companion(let companion):
            destination = Dialect.identifier(companion)
            destinationID = Dialect.identifier("id")
        case .inline:
            destination = table
            destinationID = id
        }
    }

    /// The companion table's name, unquoted; nil in the inline layout.
    package var companionTable: String? {
        if case .companion(let name) = pipeline.layout { name } else { nil }
    }

    /// The key column as a selectable expression on alias `t`, the dialect's `NULL` when the pipeline has none.
    package var keyExpression: String {
        key.map { "t.\($0)" } ?? Dialect.missingKey
    }
}
