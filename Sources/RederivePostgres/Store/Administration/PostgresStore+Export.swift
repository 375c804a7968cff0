#if PostgreSQL
import PostgresNIO
import Rederive
import RederiveSQL

/// Reading keys and payloads as stored, a page at a time, for export: reads only, never a write.
extension PostgresStore: PayloadExporting {
    /// Up to `limit` records of `pipeline` with ids greater than `cursor`, in id order: their key and,
    /// when `includingPayloads`, their payload as stored (a text or JSON column as its UTF-8 bytes).
    ///
    /// - Parameters:
    ///   - pipeline: The pipeline whose table is read.
    ///   - condition: A SQL condition on the pipeline's table, such as `key LIKE 'kitchen-%'`, that
    ///     records must satisfy; nil for every record. It runs in a read-only transaction.
    ///   - cursor: The id of the last record of the previous page; nil for the first page.
    ///   - limit: The most records in the page.
    ///   - includingPayloads: Whether to read the payloads too, or only the keys.
    /// - Throws: `RederiveError.Code.invalidArgument` naming the condition when the server refuses it.
    public func storedPayloads(
        of pipeline: Pipeline, matching condition: String?, after cursor: Int64?, limit: Int, includingPayloads: Bool
    ) async throws -> [StoredPayload] {
        let tables = PostgresPipelineTables(pipeline)
        let payload = includingPayloads ? try await payloadColumn(tables).reader(tables.payload) : "NULL::bytea"
        // The condition is evaluated inside a subquery of its own, so that it names the table's
        // columns as they are, unqualified or qualified by the table's name.
        let filtered = condition.map { "(SELECT * FROM \(tables.table) WHERE (\($0)))" } ?? tables.table
        var statement = SQLStatement()
        statement.sql = """
            SELECT t.\(tables.id), \(tables.key.map { "t.\($0)::text" } ?? "NULL::text"), \(payload)
            FROM \(filtered) t WHERE t.\(tables.id) > \(statement.bind(cursor ?? Int64.min))
            ORDER BY t.\(tables.id) LIMIT \(statement.bind(Int64(limit)))
            """
        let logger = self.logger
        let table = pipeline.table
        return try await transaction("read", snapshot: true) { [statement] connection in
            do {
                return try await connection.run(statement, logger: logger).collect { row in
                    let cells = row.makeRandomAccess()
                    return StoredPayload(
                        recordID: try cells[0].decode(Int64.self),
                        key: try cells[1].decode(String?.self),
                        payload: try cells[2].decode(ByteBuffer?.self).map { Array($0.readableBytesView) }
                    )
                }
            } catch let error as PSQLError where condition != nil && error.serverInfo != nil {
                throw RederiveError(
                    .invalidArgument, "cannot select records of \(table) where \"\(condition ?? "")\": \(PostgresProblem(error))"
                )
            }
        }
    }
}
#endif
