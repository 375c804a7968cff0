import GRDB
import Rederive
import RederiveSQL

/// Reading stored derived values, for previews: reads only, never a write.
extension SQLiteStore: StoredValueReading {
    /// SQLite's rules for the values it is given: ``SQLiteStorage/rules``.
    public var storageRules: StorageRules { SQLiteStorage.rules }

    /// Whether ``prepare(_:)`` would change anything for the pipeline, including keys to adopt.
    public func needsPreparation(_ pipeline: Pipeline) async throws -> Bool {
        let schema = PipelineSchema(tables: PipelineTables(pipeline))
        return try await read { db in try !schema.changes(db).isEmpty || PipelineKeySchema.hasUnadopted(db) }
    }

    /// The stored derived values of the given records, with their keys.
    public func storedRows(of pipeline: Pipeline, recordIDs: [Int64]) async throws -> [Int64: StoredRow] {
        let tables = PipelineTables(pipeline)
        let names = pipeline.outputColumns.map { SQL.identifier($0.name) }
        // Columns 0 and 1: the key, and whether a row of derived values exists.
        let sql = switch pipeline.layout {
        case .inline:
            "SELECT \(tables.keyExpression), 1, \(names.map { "t.\($0)" }.joined(separator: ", ")) FROM \(tables.table) t WHERE t.\(tables.id) = ?"
        case .companion:
            """
            SELECT \(tables.keyExpression), d.\(tables.destinationID) IS NOT NULL, \(names.map { "d.\($0)" }.joined(separator: ", "))
            FROM \(tables.table) t LEFT JOIN \(tables.destination) d ON d.\(tables.destinationID) = t.\(tables.id)
            WHERE t.\(tables.id) = ?
            """
        }
        return try await read { db in
            let statement = try db.cachedStatement(sql: sql)
            var rows: [Int64: StoredRow] = [:]
            for id in recordIDs {
                guard let row = try Row.fetchOne(statement, arguments: [id]) else { continue }
                let present: Bool = row[1]
                let values = present ? (2..<row.count).map { DerivedValue(row[$0] as DatabaseValue) } : nil
                rows[id] = StoredRow(key: RecordKey.text(row, at: 0), values: values)
            }
            return rows
        }
    }
}

extension DerivedValue {
    /// A stored value as rederive sees it.
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let number): self = .integer(number)
        case .double(let number): self = .real(number)
        case .string(let text): self = .text(text)
        case .blob(let data): self = .blob([UInt8](data))
        }
    }
}
