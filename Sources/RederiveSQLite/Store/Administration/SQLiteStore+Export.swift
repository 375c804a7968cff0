import GRDB
import Rederive
import RederiveSQL

/// Reading keys and payloads as stored, a page at a time, for export: reads only, never a write.
extension SQLiteStore: PayloadExporting {
    /// Up to `limit` records of `pipeline` with ids greater than `cursor`, in id order: their key and,
    /// when `includingPayloads`, their payload as stored.
    ///
    /// - Parameters:
    ///   - pipeline: The pipeline whose table is read.
    ///   - condition: A SQL condition on the pipeline's table, such as `key LIKE 'kitchen-%'`, that
    ///     records must satisfy; nil for every record. It runs on a read-only connection and must be
    ///     one expression that only reads.
    ///   - cursor: The id of the last record of the previous page; nil for the first page.
    ///   - limit: The most records in the page.
    ///   - includingPayloads: Whether to read the payloads too, or only the keys.
    /// - Throws: `RederiveError.Code.invalidArgument` naming the condition when it is not one that
    ///   SQLite can evaluate on the table, or when it would write.
    public func storedPayloads(
        of pipeline: Pipeline, matching condition: String?, after cursor: Int64?, limit: Int, includingPayloads: Bool
    ) async throws -> [StoredPayload] {
        let tables = PipelineTables(pipeline)
        // The condition is evaluated inside a subquery of its own, so that it names the table's
        // columns as they are, unqualified or qualified by the table's name.
        let filtered = condition.map { "(SELECT * FROM \(tables.table) WHERE (\($0)))" } ?? tables.table
        let sql = """
            SELECT t.\(tables.id), \(tables.keyExpression), \(includingPayloads ? "t.\(tables.payload)" : "NULL")
            FROM \(filtered) t WHERE t.\(tables.id) > ? ORDER BY t.\(tables.id) LIMIT ?
            """
        let table = pipeline.table
        return try await read { db in
            do {
                let statement = try db.makeStatement(sql: sql)
                guard statement.isReadonly else {
                    throw RederiveError(.invalidArgument, "the condition \"\(condition ?? "")\" would change \(table); it may only read")
                }
                return try Row.fetchAll(statement, arguments: [cursor ?? Int64.min, limit]).map { row in
                    StoredPayload(recordID: row[0], key: RecordKey.text(row, at: 1), payload: Self.payloadBytes(row[2]))
                }
            } catch let error as DatabaseError where condition != nil && error.resultCode != .SQLITE_BUSY {
                throw RederiveError(
                    .invalidArgument,
                    "cannot select records of \(table) where \"\(condition ?? "")\": \(error.message ?? "\(error.resultCode)")"
                )
            }
        }
    }

    /// A payload's bytes, BLOB or TEXT; nil when NULL; a number as its text.
    private static func payloadBytes(_ value: DatabaseValue) -> [UInt8]? {
        switch value.storage {
        case .null: nil
        case .blob(let data): [UInt8](data)
        case .string(let text): Array(text.utf8)
        case .int64, .double: Array(value.description.utf8)
        }
    }
}
