import Foundation
import GRDB
import Rederive

/// Finding and counting stale records: indexes only, payloads are never read.
extension SQLiteStore {
    public func pendingCount(_ plan: RunPlan) async throws -> Int {
        let tables = PipelineTables(plan.pipeline)
        return try await read { db in
            let records = try Self.recordCount(db, tables)
            var pendingByProcessor: [Int] = []
            for processor in plan.processors {
                let upToDate = try Self.upToDateCount(db, plan.pipeline, processor)
                let failed = plan.retryFailed ? 0 : try Self.failedCount(db, plan.pipeline, processor)
                pendingByProcessor.append(records - upToDate - failed)
            }
            let stale = pendingByProcessor.filter { $0 > 0 }
            if stale.count <= 1 {
                return stale.first ?? 0
            }
            // Several processors are behind: count each record once.
            let query = Self.pendingQuery(plan, tables, limit: false)
            return try Int.fetchOne(
                db,
                sql: "SELECT count(*) FROM (\(query.sql))",
                arguments: query.arguments(cursor: nil, limit: nil)
            ) ?? 0
        }
    }

    public func pendingRecords(_ plan: RunPlan, after cursor: Int64?, limit: Int, byteLimit: Int) async throws -> [PendingRecord] {
        let tables = PipelineTables(plan.pipeline)
        let query = Self.pendingQuery(plan, tables, limit: true)
        let selection = plan.selection
        return try await read { db in
            // One read transaction: each payload is read together with the generation it belongs to.
            let stale = try Row.fetchAll(
                db.cachedStatement(sql: query.sql),
                arguments: query.arguments(cursor: cursor, limit: limit)
            )
            let payloadStatement = try db.cachedStatement(
                sql: "SELECT \(tables.payload) FROM \(tables.table) WHERE \(tables.id) = ?"
            )
            var records: [PendingRecord] = []
            var bytes = 0
            for row in stale where records.isEmpty || bytes < byteLimit {
                let recordID: Int64 = row[0]
                let staleProcessors = selection.indices.compactMap { position -> Int? in
                    let isStale: Bool = row[2 + position]
                    return isStale ? selection[position] : nil
                }
                let payload = try Self.payload(payloadStatement, recordID: recordID)
                bytes += payload?.count ?? 0
                records.append(PendingRecord(recordID: recordID, payload: payload, generation: row[1], staleProcessors: staleProcessors))
            }
            return records
        }
    }

    /// A record's payload as stored, BLOB or TEXT, copied once out of SQLite; nil when NULL or missing.
    private static func payload(_ statement: Statement, recordID: Int64) throws -> [UInt8]? {
        let cursor = try Row.fetchCursor(statement, arguments: [recordID])
        guard let row = try cursor.next() else { return nil }
        return payloadBytes(row, at: 0)
    }

    /// The payload in column `index` of a row being read, BLOB or TEXT, copied once out of SQLite;
    /// nil when NULL.
    static func payloadBytes(_ row: Row, at index: Int) -> [UInt8]? {
        guard !row.hasNull(atIndex: index) else { return nil }
        if let bytes = try? row.withUnsafeData(atIndex: index, { data in data.map { [UInt8]($0) } }) {
            return bytes
        }
        // A number where a payload belongs: hand its text to the decoder, which names the problem.
        return Array((row[index] as DatabaseValue).description.utf8)
    }

    public func status(of pipeline: Pipeline) async throws -> [ProcessorStatus] {
        let tables = PipelineTables(pipeline)
        return try await read { db in
            let records = try Self.recordCount(db, tables)
            return try pipeline.processors.map { processor in
                let upToDate = try Self.upToDateCount(db, pipeline, processor)
                return ProcessorStatus(
                    pipeline: pipeline.name,
                    name: processor.name,
                    version: processor.version,
                    records: records,
                    upToDate: upToDate,
                    stale: records - upToDate,
                    failed: try Self.failedCount(db, pipeline, processor)
                )
            }
        }
    }

    static func recordCount(_ db: Database, _ tables: PipelineTables) throws -> Int {
        try Int.fetchOne(
            db.cachedStatement(sql: "SELECT count(*) FROM rederive_records WHERE source = ?"),
            arguments: [tables.pipeline.table]
        ) ?? 0
    }

    static func upToDateCount(_ db: Database, _ pipeline: Pipeline, _ processor: ProcessorDescriptor) throws -> Int {
        try Int.fetchOne(
            db.cachedStatement(sql: """
                SELECT count(*) FROM rederive_stamps WHERE pipeline = ? AND processor = ? AND version = ? AND current = 1
                """),
            arguments: [pipeline.name, processor.name, processor.version]
        ) ?? 0
    }

    static func failedCount(_ db: Database, _ pipeline: Pipeline, _ processor: ProcessorDescriptor) throws -> Int {
        try Int.fetchOne(
            db.cachedStatement(sql: """
                SELECT count(*) FROM rederive_failures WHERE pipeline = ? AND processor = ? AND version = ? AND current = 1
                """),
            arguments: [pipeline.name, processor.name, processor.version]
        ) ?? 0
    }

    /// The records stale for at least one of the plan's processors, in id order, each with one
    /// 0/1 column per processor saying whether it is stale for that record.
    struct PendingQuery {
        let sql: String
        let processorArguments: [any DatabaseValueConvertible & Sendable]
        let source: String

        func arguments(cursor: Int64?, limit: Int?) -> StatementArguments {
            var values: [(any DatabaseValueConvertible)?] = processorArguments
            values.append(source)
            values.append(cursor ?? Int64.min)
            if let limit { values.append(limit) }
            return StatementArguments(values)
        }
    }

    static func pendingQuery(_ plan: RunPlan, _ tables: PipelineTables, limit: Bool) -> PendingQuery {
        var flags: [String] = []
        var arguments: [any DatabaseValueConvertible & Sendable] = []
        for processor in plan.processors {
            var flag = """
                NOT EXISTS (SELECT 1 FROM rederive_stamps s WHERE s.pipeline = ? AND s.processor = ? \
                AND s.record_id = r.record_id AND s.version = ? AND s.current = 1)
                """
            arguments += [plan.pipeline.name, processor.name, processor.version]
            if !plan.retryFailed {
                flag += """
                     AND NOT EXISTS (SELECT 1 FROM rederive_failures f WHERE f.pipeline = ? AND f.processor = ? \
                    AND f.record_id = r.record_id AND f.version = ? AND f.current = 1)
                    """
                arguments += [plan.pipeline.name, processor.name, processor.version]
            }
            flags.append("(\(flag)) AS stale\(flags.count)")
        }
        let anyStale = plan.processors.indices.map { "stale\($0)" }.joined(separator: " OR ")
        let sql = """
            SELECT * FROM (
                SELECT r.record_id, r.generation, \(flags.joined(separator: ", "))
                FROM rederive_records r
                WHERE r.source = ? AND r.record_id > ?
            )
            WHERE \(anyStale)
            ORDER BY record_id\(limit ? " LIMIT ?" : "")
            """
        return PendingQuery(sql: sql, processorArguments: arguments, source: plan.pipeline.table)
    }
}
