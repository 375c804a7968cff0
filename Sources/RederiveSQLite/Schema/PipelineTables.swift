import RederiveSQL

/// The quoted names and SQL fragments one pipeline's statements are built from, in SQLite's SQL:
/// the shared ``RederiveSQL/PipelineTables`` in this store's dialect.
typealias PipelineTables = RederiveSQL.PipelineTables<SQL>
