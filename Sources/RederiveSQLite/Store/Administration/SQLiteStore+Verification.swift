import GRDB
import Rederive
import RederiveSQL

/// Reading records as stored, for `Verifier`: payload, derived values and stamps from one snapshot.
extension SQLiteStore: VerificationSource {
    /// Records after the cursor, in id order, with payloads, derived values and stamps from one snapshot.
    public func storedRecords(of pipeline: Pipeline, after cursor: Int64?, limit: Int) async throws -> [StoredRecord] {
        let tables = PipelineTables(pipeline)
        return try await read { db in
            try Self.storedRecords(db, tables, where: "t.\(tables.id) > ? ORDER BY t.\(tables.id) LIMIT ?", [cursor ?? Int64.min, limit])
        }
    }

    /// The given records, with payloads, derived values and stamps from one snapshot.
    public func storedRecords(of pipeline: Pipeline, ids: [Int64]) async throws -> [StoredRecord] {
        guard !ids.isEmpty else { return [] }
        let tables = PipelineTables(pipeline)
        let placeholders = Array(repeating: "?", count: ids.count).joined(separator: ", ")
        return try await read { db in
            try Self.storedRecords(
                db, tables, where: "t.\(tables.id) IN (\(placeholders)) ORDER BY t.\(tables.id)", StatementArguments(ids)
            )
        }
    }

    /// A uniform random sample of record ids, in id order.
    public func sampleRecordIDs(of pipeline: Pipeline, count: Int) async throws -> [Int64] {
        let tables = PipelineTables(pipeline)
        return try await read { db in
            try Int64.fetchAll(
                db, sql: "SELECT \(tables.id) FROM \(tables.table) ORDER BY random() LIMIT ?", arguments: [count]
            ).sorted()
        }
    }

    private static func storedRecords(
        _ db: Database, _ tables: PipelineTables, where condition: String, _ arguments: StatementArguments
    ) throws -> [StoredRecord] {
        let pipeline = tables.pipeline
        let columns = pipeline.outputColumns.map { "d.\(SQL.identifier($0.name))" }
        let rows = try Row.fetchAll(db, sql: """
            SELECT t.\(tables.id), \(tables.keyExpression), t.\(tables.payload)\(columns.map { ", " + $0 }.joined())
            FROM \(tables.table) t LEFT JOIN \(tables.destination) d ON d.\(tables.destinationID) = t.\(tables.id)
            WHERE \(condition)
            """, arguments: arguments)
        let stampsOfRecord = try db.cachedStatement(
            sql: "SELECT processor, version, current FROM rederive_stamps WHERE pipeline = ? AND record_id = ?"
        )
        return try rows.map { row in
            let recordID: Int64 = row[0]
            var stamps: [String: StoredRecord.Stamp] = [:]
            for stamp in try Row.fetchAll(stampsOfRecord, arguments: [pipeline.name, recordID]) {
                stamps[stamp[0]] = StoredRecord.Stamp(version: stamp[1], current: stamp[2])
            }
            var next = 3
            let values = pipeline.processors.map { processor in
                processor.columns.map { _ in
                    defer { next += 1 }
                    return DerivedValue(row[next] as DatabaseValue)
                }
            }
            return StoredRecord(
                recordID: recordID,
                key: RecordKey.text(row, at: 1),
                payload: storedBytes(row[2] as DatabaseValue),
                values: values,
                stamps: pipeline.processors.map { stamps[$0.name] }
            )
        }
    }
}

/// A payload as stored, BLOB or TEXT; nil when NULL; a number as its text, for the decoder to reject.
private func storedBytes(_ value: DatabaseValue) -> [UInt8]? {
    switch value.storage {
    case .null: nil
    case .blob(let data): [UInt8](data)
    case .string(let text): Array(text.utf8)
    case .int64, .double: Array(value.description.utf8)
    }
}
