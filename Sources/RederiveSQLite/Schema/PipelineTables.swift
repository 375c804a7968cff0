import Rederive

/// The quoted names and SQL fragments one pipeline's statements are built from.
struct PipelineTables: Sendable {
    let pipeline: Pipeline
    /// The pipeline's table, quoted.
    let table: String
    let id: String
    let key: String?
    let payload: String
    /// The table that holds derived columns (the companion table, or the pipeline's own), quoted.
    let destination: String
    /// The destination's id column, quoted.
    let destinationID: String
    /// The pipeline's table name as a string literal, the `source` of its bookkeeping rows.
    let source: String

    init(_ pipeline: Pipeline) {
        self.pipeline = pipeline
        table = SQL.identifier(pipeline.table)
        id = SQL.identifier(pipeline.idColumn)
        key = pipeline.keyColumn.map(SQL.identifier)
        payload = SQL.identifier(pipeline.payloadColumn)
        source = SQL.literal(pipeline.table)
        switch pipeline.layout {
        case .companion(let companion):
            destination = SQL.identifier(companion)
            destinationID = SQL.identifier("id")
        case .inline:
            destination = table
            destinationID = id
        }
    }

    var companionTable: String? {
        if case .companion(let name) = pipeline.layout { name } else { nil }
    }

    /// The key column as a selectable expression on alias `t`, `NULL` when the pipeline has none.
    var keyExpression: String {
        key.map { "t.\($0)" } ?? "NULL"
    }
}
