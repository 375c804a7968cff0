import Foundation
import GRDB
import Rederive
import RederiveSQL

/// Failure reports and invalidation.
extension SQLiteStore {
    /// The current failures of the processors' present versions, oldest record first.
    public func failures(of pipeline: Pipeline, filter: FailureFilter) async throws -> [RecordFailure] {
        let tables = PipelineTables(pipeline)
        let processors = pipeline.processors.filter { filter.processors?.contains($0.name) ?? true }
        return try await read { db in
            var reports: [RecordFailure] = []
            for processor in processors {
                var sql = """
                    SELECT f.record_id, \(tables.keyExpression) AS record_key, f.kind, f.message, f.run_id, f.failed_at
                    FROM rederive_failures f
                    LEFT JOIN \(tables.table) t ON t.\(tables.id) = f.record_id
                    WHERE f.pipeline = ? AND f.processor = ? AND f.version = ? AND f.current = 1
                    """
                var arguments: StatementArguments = [pipeline.name, processor.name, processor.version]
                if let runID = filter.runID {
                    sql += " AND f.run_id = ?"
                    arguments += [runID]
                }
                for row in try Row.fetchAll(db, sql: sql, arguments: arguments) {
                    let kind: String = row["kind"]
                    let at: String = row["failed_at"]
                    reports.append(RecordFailure(
                        pipeline: pipeline.name,
                        recordID: row["record_id"],
                        key: RecordKey.text(row, named: "record_key"),
                        processor: processor.name,
                        version: processor.version,
                        kind: FailureKind(rawValue: kind) ?? .processor,
                        message: row["message"],
                        runID: row["run_id"],
                        at: Timestamp.date(at) ?? Date(timeIntervalSince1970: 0)
                    ))
                }
            }
            return RecordFailure.ordered(reports, in: pipeline)
        }
    }

    /// Marks the matching stamps not current, in one transaction, after checking the names and keys.
    public func invalidate(_ pipeline: Pipeline, processors: [String]?, keys: [String]?) async throws -> Int {
        let request = try Invalidation(pipeline, processors: processors, keys: keys)
        let tables = PipelineTables(pipeline)
        let names = request.processors
        return try await write { db in
            var recordIDs: [Int64]?
            if let keys = request.keys, let key = tables.key {
                var found: [Int64] = []
                var missing: [String] = []
                let lookup = try db.cachedStatement(sql: "SELECT \(tables.id) FROM \(tables.table) WHERE \(key) = ?")
                // A key column may hold numbers or blobs; a key typed as text finds them by their text
                // (a scan, so only for a key the indexed lookup missed).
                let byText = try db.cachedStatement(
                    sql: "SELECT \(tables.id) FROM \(tables.table) WHERE typeof(\(key)) != 'text' AND CAST(\(key) AS TEXT) = ?"
                )
                for value in keys {
                    if let id = try Int64.fetchOne(lookup, arguments: [value]) ?? Int64.fetchOne(byText, arguments: [value]) {
                        found.append(id)
                    } else {
                        missing.append(value)
                    }
                }
                try request.requireRecords(missing: missing)
                recordIDs = found
            }
            for table in ["rederive_stamps", "rederive_failures"] {
                for name in names {
                    if let recordIDs {
                        let statement = try db.cachedStatement(
                            sql: "UPDATE \(table) SET current = 0 WHERE pipeline = ? AND processor = ? AND record_id = ?"
                        )
                        for id in recordIDs {
                            try statement.execute(arguments: [pipeline.name, name, id])
                        }
                    } else {
                        try db.execute(
                            sql: "UPDATE \(table) SET current = 0 WHERE pipeline = ? AND processor = ? AND current = 1",
                            arguments: [pipeline.name, name]
                        )
                    }
                }
            }
            if let recordIDs { return recordIDs.count }
            return try Self.recordCount(db, tables)
        }
    }
}
