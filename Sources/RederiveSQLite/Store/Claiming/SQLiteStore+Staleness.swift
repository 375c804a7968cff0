import GRDB
import Rederive
import RederiveSQL

/// Finding and counting stale records: indexes only, payloads are never read.
extension SQLiteStore {
    /// Counts the plan's stale records from the stamps, without reading a payload.
    public func staleCount(_ plan: RunPlan) async throws -> Int {
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

    /// Reads stale records with their payloads without claiming them.
    public func staleRecords(_ plan: RunPlan, after cursor: Int64?, limit: Int, byteLimit: Int) async throws -> [PendingRecord] {
        let tables = PipelineTables(plan.pipeline)
        let query = Self.pendingQuery(plan, tables, limit: true)
        return try await read { db in
            // One read transaction: each payload is read together with the generation it belongs to.
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: query.sql),
                arguments: query.arguments(cursor: cursor, limit: limit)
            )
            let picks = rows.map(query.pick)
            return try PendingReader(plan, tables, db).read(picks, byteLimit: byteLimit)
        }
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

    /// Counts up-to-date, stale and failed records per processor.
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
    /// 0/1 column per processor saying whether it is stale for that record; for a plan with dependent
    /// processors, also the kind of each current failure that dependents must know of, and the input
    /// digest of each dependent's current stamp.
    struct PendingQuery {
        let plan: RunPlan
        let sql: String
        let processorArguments: [any DatabaseValueConvertible & Sendable]
        let source: String
        /// What the columns of a row hold.
        let layout: PendingRowLayout

        /// Whether a processor that reads the payload may run for some record: if not for all the
        /// processors asked about, then for no record.
        var mayReadPayload: Bool { layout.mayReadPayload }

        /// The columns of a row of the query.
        var columnCount: Int { layout.columnCount }

        /// The arguments of ``sql`` for the records after `cursor` (from the first when nil), within the
        /// plan's ids, at most `limit` of them.
        func arguments(cursor: Int64?, limit: Int?) -> StatementArguments {
            var values: [(any DatabaseValueConvertible)?] = processorArguments
            values.append(source)
            let ids = plan.recordIDs
            var after = cursor ?? Int64.min
            if ids.lowerBound > Int64.min { after = max(after, ids.lowerBound - 1) }
            values.append(after)
            if plan.isRangeOfIDs { values.append(ids.upperBound) }
            if let limit { values.append(limit) }
            return StatementArguments(values)
        }

        /// What a row of the query says of its record.
        func pick(_ row: Row) -> PendingPick {
            layout.pick(recordID: row[0], generation: row[1], flag: { row[$0] }, text: { row[$0] }, integer: { row[$0] })
        }
    }

    /// Which of a plan's processors a pending query asks about for each record: all of them, or only
    /// those that the counts say can matter (``pendingShape(_:_:)``).
    struct PendingShape: Sendable {
        /// Processors that may be stale for some record.
        let staleCandidates: [Int]
        /// Processors whose current failures dependents need.
        let failureColumns: [Int]
        /// Dependents whose current stamps' input digests are needed.
        let digestColumns: [Int]

        /// Every processor of the plan.
        init(_ plan: RunPlan) {
            staleCandidates = plan.selection
            failureColumns = plan.failuresDependentsNeed
            digestColumns = plan.dependents
        }

        init(staleCandidates: [Int], failureColumns: [Int], digestColumns: [Int]) {
            self.staleCandidates = staleCandidates
            self.failureColumns = failureColumns
            self.digestColumns = digestColumns
        }
    }

    /// The shape of a plan's pending query pruned by index counts: a processor that no record is
    /// pending for needs no stale flag, one without a current failure no failure column, a dependent
    /// without a current stamp no digest column. A run claims with the shape of its start: a record
    /// that becomes stale for another processor meanwhile is left to the next run, as one whose
    /// payload is replaced after it was claimed.
    static func pendingShape(_ plan: RunPlan, _ db: Database) throws -> PendingShape {
        let records = try recordCount(db, PipelineTables(plan.pipeline))
        var stale: [Int] = []
        var failed: Set<Int> = []
        var stamped: Set<Int> = []
        for index in plan.selection {
            let processor = plan.pipeline.processors[index]
            let upToDate = try upToDateCount(db, plan.pipeline, processor)
            let failures = try failedCount(db, plan.pipeline, processor)
            if records - upToDate - (plan.retryFailed ? 0 : failures) > 0 { stale.append(index) }
            if failures > 0 { failed.insert(index) }
            if upToDate > 0 { stamped.insert(index) }
        }
        return PendingShape(
            staleCandidates: stale,
            failureColumns: plan.failuresDependentsNeed.filter(failed.contains),
            digestColumns: plan.dependents.filter(stamped.contains)
        )
    }

    static func pendingQuery(_ plan: RunPlan, _ tables: PipelineTables, limit: Bool, shape: PendingShape? = nil) -> PendingQuery {
        let shape = shape ?? PendingShape(plan)
        var flags: [String] = []
        var arguments: [any DatabaseValueConvertible & Sendable] = []
        /// `select` from the record's row of `table` for `index`'s processor at its current version, if current.
        func currentRow(_ select: String, of table: String, _ index: Int) -> String {
            let processor = plan.pipeline.processors[index]
            arguments += [plan.pipeline.name, processor.name, processor.version]
            return """
                SELECT \(select) FROM \(table) x WHERE x.pipeline = ? AND x.processor = ? \
                AND x.record_id = r.record_id AND x.version = ? AND x.current = 1
                """
        }
        /// Whether the record has a current stamp of the processor at `index`, at any version.
        func anyCurrentStamp(_ index: Int) -> String {
            arguments += [plan.pipeline.name, plan.pipeline.processors[index].name]
            return """
                EXISTS (SELECT 1 FROM rederive_stamps x WHERE x.pipeline = ? AND x.processor = ? \
                AND x.record_id = r.record_id AND x.current = 1)
                """
        }
        for index in shape.staleCandidates {
            var flag = switch plan.lane {
            case .all: "NOT EXISTS (\(currentRow("1", of: "rederive_stamps", index)))"
            // No current stamp at any version implies none at this one.
            case .fresh: "NOT \(anyCurrentStamp(index))"
            case .backlog: "NOT EXISTS (\(currentRow("1", of: "rederive_stamps", index))) AND \(anyCurrentStamp(index))"
            }
            if !plan.retryFailed {
                flag += " AND NOT EXISTS (\(currentRow("1", of: "rederive_failures", index)))"
            }
            flags.append("(\(flag)) AS stale\(flags.count)")
        }
        let anyStale = shape.staleCandidates.isEmpty ? "0" : shape.staleCandidates.indices.map { "stale\($0)" }.joined(separator: " OR ")
        // Dependents decide per record whether to run: they need the failures of what they read and
        // their own, and the input digest their current stamps keep.
        for index in shape.failureColumns {
            flags.append("(\(currentRow("x.kind", of: "rederive_failures", index)))")
        }
        for index in shape.digestColumns {
            flags.append("(\(currentRow("x.inputs_digest", of: "rederive_stamps", index)))")
        }
        let sql = """
            SELECT * FROM (
                SELECT r.record_id, r.generation\(flags.map { ", " + $0 }.joined())
                FROM rederive_records r
                WHERE r.source = ? AND r.record_id > ?\(plan.isRangeOfIDs ? " AND r.record_id <= ?" : "")
            )
            WHERE \(anyStale)
            ORDER BY record_id\(limit ? " LIMIT ?" : "")
            """
        return PendingQuery(
            plan: plan, sql: sql, processorArguments: arguments, source: plan.pipeline.table,
            layout: PendingRowLayout(
                plan, staleFlags: shape.staleCandidates, failureColumns: shape.failureColumns, digestColumns: shape.digestColumns
            )
        )
    }
}
