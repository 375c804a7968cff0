#if PostgreSQL
import Foundation
import PostgresNIO
import Rederive
import RederiveSQL

/// Failure reports and invalidation.
extension PostgresStore: StoreReporting {
    /// The current failures of the processors' present versions, oldest record first.
    public func failures(of pipeline: Pipeline, filter: FailureFilter) async throws -> [RecordFailure] {
        let tables = PostgresPipelineTables(pipeline)
        let processors = pipeline.processors.filter { filter.processors?.contains($0.name) ?? true }
        let logger = self.logger
        let reports = try await withConnection("read") { connection in
            var reports: [RecordFailure] = []
            for processor in processors {
                var statement = SQLStatement()
                statement.sql = """
                    SELECT f.record_id, \(tables.keyExpression)::text, f.kind, f.message, f.run_id, f.failed_at
                    FROM rederive_failures f LEFT JOIN \(tables.table) t ON t.\(tables.id) = f.record_id
                    WHERE f.pipeline = \(statement.bind(pipeline.name)) AND f.processor = \(statement.bind(processor.name))
                    AND f.version = \(statement.bind(Int32(processor.version))) AND f.current
                    """
                if let runID = filter.runID {
                    statement.sql += " AND f.run_id = \(statement.bind(runID))"
                }
                reports += try await connection.run(statement, logger: logger).collect { row in
                    let (id, key, kind, message, run, at) = try row.decode((Int64, String?, String, String, Int64?, Date).self)
                    return RecordFailure(
                        pipeline: pipeline.name, recordID: id, key: key, processor: processor.name, version: processor.version,
                        kind: FailureKind(rawValue: kind) ?? .processor, message: message, runID: run, at: at
                    )
                }
            }
            return reports
        }
        return RecordFailure.ordered(reports, in: pipeline)
    }

    /// Marks the matching stamps not current, in one transaction, after checking the names and keys.
    public func invalidate(_ pipeline: Pipeline, processors: [String]?, keys: [String]?) async throws -> Int {
        let request = try Invalidation(pipeline, processors: processors, keys: keys)
        let tables = PostgresPipelineTables(pipeline)
        let names = request.processors
        let logger = self.logger
        return try await transaction("invalidate records in") { connection in
            var recordIDs: [Int64]?
            if let keys = request.keys, let key = tables.key {
                var lookup = SQLStatement()
                lookup.sql = "SELECT \(tables.id), \(key)::text FROM \(tables.table) WHERE \(key) = ANY(\(lookup.bind(keys)))"
                let found = try await connection.run(lookup, logger: logger).collect { try $0.decode((Int64, String).self) }
                let missing = keys.filter { wanted in !found.contains { $0.1 == wanted } }
                try request.requireRecords(missing: missing)
                recordIDs = found.map(\.0)
            }
            // The named processors' stamps and failures are marked not current, one statement each.
            for table in ["rederive_stamps", "rederive_failures"] {
                var statement = SQLStatement()
                statement.sql = """
                    UPDATE \(table) SET current = false WHERE pipeline = \(statement.bind(pipeline.name))
                    AND processor = ANY(\(statement.bind(names))) AND current
                    """
                if let recordIDs {
                    statement.sql += " AND record_id = ANY(\(statement.bind(recordIDs)))"
                }
                try await connection.run(statement, logger: logger)
            }
            // Watchers listening learn at once that records became stale.
            try await connection.query(
                PostgresQuery(unsafeSQL: "SELECT pg_notify(\(PostgresSQL.literal(Self.changeChannel)), \(PostgresSQL.literal(pipeline.table)))"),
                logger: logger
            )
            if let recordIDs { return recordIDs.count }
            return try await Self.recordCount(pipeline, connection, logger)
        }
    }
}
#endif
