#if PostgreSQL
import Foundation
import PostgresNIO
import Rederive
import RederiveSQL
import Synchronization

/// Finding and counting stale records, and reading them for a preview without claiming them.
extension PostgresStore {
    /// Creates what is missing for the pipeline (bookkeeping, output columns, triggers) in one
    /// transaction. Once done, a pipeline declared alike is not looked at again in this process: a
    /// store opened prepared starts its runs without asking the server again.
    public func prepare(_ pipeline: Pipeline) async throws {
        let key = PreparedPipeline(pipeline)
        if preparedPipelines.withLock({ $0.contains(key) }) { return }
        let schema = PostgresPipelineSchema(tables: PostgresPipelineTables(pipeline))
        let logger = self.logger
        var changes = try await withConnection("read") { try await schema.changes($0, logger) }
        if !changes.isEmpty {
            changes = try await transaction("prepare \(pipeline.table) in") { connection in
                // Another worker may be preparing the same table: one at a time, each looking again.
                try await connection.query("SELECT pg_advisory_xact_lock(hashtext('rederive'))", logger: logger)
                let again = try await schema.changes(connection, logger)
                try await schema.apply(again, connection, logger)
                return again
            }
        }
        remember(PayloadColumn(type: changes.payloadType), for: pipeline)
        preparedPipelines.withLock { _ = $0.insert(key) }
    }

    /// Makes the next ``prepare(_:)`` of every pipeline look at the database again.
    func forgetPreparedPipelines() {
        preparedPipelines.withLock { $0.removeAll() }
    }

    private func remember(_ column: PayloadColumn, for pipeline: Pipeline) {
        payloadColumns.withLock { $0[pipeline.table] = column }
    }

    /// What this pipeline's payload column holds; looked up once, when ``prepare(_:)`` has not.
    func payloadColumn(_ tables: PostgresPipelineTables) async throws -> PayloadColumn {
        if let known = payloadColumns.withLock({ $0[tables.pipeline.table] }) { return known }
        let logger = self.logger
        let columns = try await withConnection("read") { connection in
            try await PostgresPipelineSchema.columns(of: tables.pipeline.table, connection, logger)
        }
        let column = PayloadColumn(type: columns[tables.pipeline.payloadColumn])
        remember(column, for: tables.pipeline)
        return column
    }

    /// Counts the plan's stale records: from the kept counts when one processor is behind, in one
    /// pass over the records when several are.
    public func staleCount(_ plan: RunPlan) async throws -> Int {
        let logger = self.logger
        return try await withConnection("read") { connection in
            try await Self.staleCount(plan, connection, logger)
        }
    }

    /// How many records `plan` would derive, counted on `connection`.
    static func staleCount(_ plan: RunPlan, _ connection: PostgresConnection, _ logger: Logger) async throws -> Int {
        let counts = try await keptCounts(plan.pipeline, connection, logger)
        var stale: [Int] = []
        for index in plan.selection {
            let failed = plan.retryFailed ? 0 : counts.failed[index]
            let left = counts.records - counts.upToDate[index] - failed
            if left > 0 { stale.append(left) }
        }
        if stale.count <= 1 { return stale.first ?? 0 }
        // Several processors are behind: count each record once.
        var statement = SQLStatement()
        let condition = staleCondition(plan, &statement)
        statement.sql = """
            SELECT count(*) FROM rederive_records r \(condition.join)
            WHERE r.source = \(statement.bind(plan.pipeline.table)) AND (\(condition.any))
            """
        return try await connection.count(statement, logger: logger)
    }

    /// Reads stale records with their payloads without claiming them.
    public func staleRecords(_ plan: RunPlan, after cursor: Int64?, limit: Int, byteLimit: Int) async throws -> [PendingRecord] {
        let tables = PostgresPipelineTables(plan.pipeline)
        let reader = PostgresPendingReader(plan: plan, tables: tables, payloadColumn: try await payloadColumn(tables), statements: statements)
        var statement = SQLStatement()
        let columns = PendingColumns(plan, &statement)
        statement.sql = """
            SELECT r.record_id, r.generation, \(columns.expressions.joined(separator: ", "))
            FROM rederive_records r
            JOIN \(tables.table) t ON t.\(tables.id) = r.record_id
            \(columns.join)
            WHERE r.source = \(statement.bind(plan.pipeline.table)) AND r.record_id > \(statement.bind(cursor ?? Int64.min))
            AND (\(columns.anyStale))
            ORDER BY r.record_id LIMIT \(statement.bind(Int64(limit)))
            """
        let logger = self.logger
        // One snapshot: each payload and stored value is read together with the generation it belongs to.
        return try await transaction("read", snapshot: true) { [statement] connection in
            let picks = try await connection.run(statement, logger: logger).collect(columns.pick)
            return try await reader.read(picks, byteLimit: byteLimit, connection, logger)
        }
    }

    /// Per processor of the plan, a condition on `r` (rederive_records) and `s`, its stamps joined by
    /// `join`, that holds when the processor is stale for the record; and their disjunction, within
    /// the plan's ids. The pipeline's name is bound once, as the returned placeholder.
    ///
    /// `join` reads a record's stamps in one scan of the key's prefix (pipeline, record), folded into
    /// one row: per processor whether its stamp is current at its version (`s.up0` …) and, for the
    /// fresh and backlog lanes, at any (`s.current0` …); and `s.digest<index>`, the inputs digest of
    /// the current stamp of each processor of `digests`. A probe of the key per processor and record
    /// cost the server several times more.
    ///
    /// Its current failures come the same way, in one probe of the record's failures folded into
    /// `fl` (``failureKind(_:)`` names each of `failureKinds`): a subquery per processor, each in the
    /// select list and again in the condition, cost more to plan than the rest of a claim's pick.
    static func staleCondition(
        _ plan: RunPlan, _ statement: inout SQLStatement, digests: [Int] = [], failureKinds: [Int] = []
    ) -> StaleCondition {
        let pipeline = statement.bind(plan.pipeline.name)
        var folded: [String] = []
        var failures: [String] = []
        var flags: [String] = []
        for (offset, processor) in plan.processors.enumerated() {
            let name = statement.bind(processor.name)
            let version = statement.bind(Int32(processor.version))
            folded.append("bool_or(x.processor = \(name) AND x.version = \(version) AND x.current) AS up\(offset)")
            if plan.lane != .all {
                folded.append("bool_or(x.processor = \(name) AND x.current) AS current\(offset)")
            }
            var flag = "NOT coalesce(s.up\(offset), false)"
            switch plan.lane {
            case .all: break
            case .fresh: flag = "NOT coalesce(s.current\(offset), false)"
            case .backlog: flag += " AND coalesce(s.current\(offset), false)"
            }
            if !plan.retryFailed {
                failures.append("bool_or(y.processor = \(name) AND y.version = \(version)) AS failed\(offset)")
                flag += " AND NOT coalesce(fl.failed\(offset), false)"
            }
            flags.append("(\(flag))")
        }
        for index in failureKinds {
            let processor = plan.pipeline.processors[index]
            failures.append("""
                max(y.kind) FILTER (WHERE y.processor = \(statement.bind(processor.name)) \
                AND y.version = \(statement.bind(Int32(processor.version)))) AS kind\(index)
                """)
        }
        for index in digests {
            let processor = plan.pipeline.processors[index]
            folded.append("""
                max(x.inputs_digest) FILTER (WHERE x.processor = \(statement.bind(processor.name)) \
                AND x.version = \(statement.bind(Int32(processor.version))) AND x.current) AS digest\(index)
                """)
        }
        var any = flags.joined(separator: " OR ")
        if plan.isRangeOfIDs {
            // A plan of some ids only: the records outside them are not its to hand out or count.
            let ids = plan.recordIDs
            any = "r.record_id BETWEEN \(statement.bind(ids.lowerBound)) AND \(statement.bind(ids.upperBound)) AND (\(any))"
        }
        var join = """
            CROSS JOIN LATERAL (SELECT \(folded.joined(separator: ", ")) FROM rederive_stamps x \
            WHERE x.pipeline = \(pipeline) AND x.record_id = r.record_id) s
            """
        if !failures.isEmpty {
            join += """
                 CROSS JOIN LATERAL (SELECT \(failures.joined(separator: ", ")) FROM rederive_failures y \
                WHERE y.source = r.source AND y.record_id = r.record_id AND y.pipeline = \(pipeline) AND y.current) fl
                """
        }
        return StaleCondition(join: join, flags: flags, any: any)
    }

    /// The column of ``staleCondition(_:_:digests:failureKinds:)``'s join that holds the kind of
    /// the record's current failure of processor `index`, if any.
    static func failureKind(_ index: Int) -> String { "fl.kind\(index)" }

    /// A string as a JSON string literal.
    static func jsonString(_ text: String) -> String {
        (try? JSONEncoder().encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }

    static func recordCount(_ pipeline: Pipeline, _ connection: PostgresConnection, _ logger: Logger) async throws -> Int {
        var statement = SQLStatement()
        statement.sql = "SELECT count(*) FROM rederive_records WHERE source = \(statement.bind(pipeline.table))"
        return try await connection.count(statement, logger: logger)
    }
}

/// What ``PostgresStore/staleCondition(_:_:digests:failureKinds:)`` builds.
struct StaleCondition {
    /// The join that gives `s`, the record's stamps folded into one row, and `fl`, its current failures.
    let join: String
    /// Per processor of the plan, whether it is stale for the record.
    let flags: [String]
    /// Whether any is, within the plan's ids.
    let any: String
}
#endif
