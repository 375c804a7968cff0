#if PostgreSQL
import Rederive
import RederiveSQL

/// The quoted names one pipeline's statements are built from, in PostgreSQL's SQL: the shared
/// ``RederiveSQL/PipelineTables`` in this store's dialect.
typealias PostgresPipelineTables = PipelineTables<PostgresSQL>

extension PipelineTables where Dialect == PostgresSQL {
    /// The trigger function's and the trigger's name.
    var trackerName: String { "rederive_\(pipeline.table)_track" }
    /// The statement trigger that tells listening watchers that payloads were written.
    var notifierName: String { "rederive_\(pipeline.table)_notify" }
    /// The function a commit calls to lock its records' rows of the table before their bookkeeping rows.
    var holderName: String { "rederive_\(pipeline.table)_hold" }
}
#endif
