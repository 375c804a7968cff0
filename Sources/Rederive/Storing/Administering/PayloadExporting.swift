/// A store that hands out records' keys and payloads as they are stored, a page at a time: what
/// `rederive export` uses. Reading never writes.
public protocol PayloadExporting: Sendable {
    /// Up to `limit` records of `pipeline` with ids greater than `cursor`, in id order: their key and,
    /// when `includingPayloads`, their payload as stored (a text column's value as its UTF-8 bytes).
    ///
    /// - Parameters:
    ///   - pipeline: The pipeline whose table is read.
    ///   - condition: A condition on the pipeline's table, in the store's own query language (a SQL
    ///     expression on SQLite and PostgreSQL, such as `key LIKE 'kitchen-%'`), that records must
    ///     satisfy; nil for every record. It is evaluated so that it can only read.
    ///   - cursor: The id of the last record of the previous page; nil for the first page.
    ///   - limit: The most records in the page.
    ///   - includingPayloads: Whether to read the payloads too, or only the keys.
    /// - Throws: ``RederiveError/Code/invalidArgument`` naming the condition when the store cannot
    ///   evaluate it on the table, or when it would write.
    func storedPayloads(
        of pipeline: Pipeline, matching condition: String?, after cursor: Int64?, limit: Int, includingPayloads: Bool
    ) async throws -> [StoredPayload]
}
