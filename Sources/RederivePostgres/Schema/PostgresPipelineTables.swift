#if PostgreSQL
import Rederive

/// The quoted names one pipeline's statements are built from.
struct PostgresPipelineTables: Sendable {
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

    init(_ pipeline: Pipeline) {
        self.pipeline = pipeline
        table = PostgresSQL.identifier(pipeline.table)
        id = PostgresSQL.identifier(pipeline.idColumn)
        key = pipeline.keyColumn.map(PostgresSQL.identifier)
        payload = PostgresSQL.identifier(pipeline.payloadColumn)
        switch pipeline.layout {
        case .companion(let companion):
            destination = PostgresSQL.identifier(companion)
            destinationID = PostgresSQL.identifier("id")
        case .inline:
            destination = table
            destinationID = id
        }
    }

    var companionTable: String? {
        if case .companion(let name) = pipeline.layout { name } else { nil }
    }

    /// The key column on alias `t`, `NULL` when the pipeline has none.
    var keyExpression: String {
        key.map { "t.\($0)" } ?? "NULL::text"
    }

    /// The trigger function's and the trigger's name.
    var trackerName: String { "rederive_\(pipeline.table)_track" }
}
#endif
