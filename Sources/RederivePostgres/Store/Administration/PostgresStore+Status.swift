#if PostgreSQL
import PostgresNIO
import Rederive

/// What `status` shows of a pipeline: read from the counts kept as stamps are written
/// (``PostgresStatusCounts``), or recounted from every row as a check.
extension PostgresStore {
    /// Counts up-to-date, stale and failed records per processor, from the kept counts: a few rows
    /// however many records there are, exact in the snapshot they are read in.
    public func status(of pipeline: Pipeline) async throws -> [ProcessorStatus] {
        let logger = self.logger
        let counts = try await withConnection("read") { connection in
            try await Self.keptCounts(pipeline, connection, logger)
        }
        return counts.statuses(of: pipeline)
    }

    /// The kept counts (`kept`, as ``status(of:)`` reads them) beside the same counts recounted from
    /// every record, stamp row and failure (`recounted`, as `status` counted them before counts were
    /// kept), both read in one snapshot: they differ only where the kept counts went wrong.
    package func statusCheck(of pipeline: Pipeline) async throws -> (kept: [ProcessorStatus], recounted: [ProcessorStatus]) {
        let logger = self.logger
        let (kept, recounted) = try await transaction("read", snapshot: true) { connection in
            let kept = try await Self.keptCounts(pipeline, connection, logger)
            var recounted = PipelineCounts(
                records: try await Self.recordCount(pipeline, connection, logger),
                upToDate: try await Self.recountUpToDate(pipeline, connection, logger),
                failed: []
            )
            for processor in pipeline.processors {
                recounted.failed.append(try await Self.recountFailed(pipeline, processor, connection, logger))
            }
            return (kept, recounted)
        }
        return (kept.statuses(of: pipeline), recounted.statuses(of: pipeline))
    }

    /// Folds the pending count deltas into the totals unless another session is folding; returns how
    /// many delta rows it folded. Workers call it as their leases are renewed; it changes no count.
    @discardableResult
    package func foldCounts() async throws -> Int {
        let logger = self.logger
        return try await transaction("fold the counts of") { connection in
            try await PostgresStatusCounts.fold(connection, logger)
        }
    }

    /// Folds the pending count deltas, as ``foldCounts()`` does, giving up after `limit`: a fold is
    /// housekeeping, so a failed one is logged and left to the next.
    func foldCounts(within limit: Duration) async {
        let logger = self.logger
        do {
            _ = try await watchedTransaction("fold the counts of", within: limit, cancelled: .giveUp) { connection in
                try await PostgresStatusCounts.fold(connection, logger)
            }
        } catch {
            logger.warning("cannot fold the counts kept for status", metadata: ["error": "\(error)"])
        }
    }

    /// A pipeline's kept counts: its table's records, and per processor of the pipeline, in order, the
    /// records up to date at its present version, those whose failure at it is current and those
    /// current at another version (its backlog). One
    /// statement, so one snapshot: a fold moving deltas into the totals is seen whole or not at all.
    static func keptCounts(_ pipeline: Pipeline, _ connection: PostgresConnection, _ logger: Logger) async throws -> PipelineCounts {
        var statement = SQLStatement()
        statement.sql = """
            SELECT kind, processor, version, sum(count)::bigint FROM (
                SELECT kind, scope, processor, version, count FROM rederive_counts
                UNION ALL SELECT kind, scope, processor, version, delta FROM rederive_count_deltas
            ) c WHERE (kind = 'records' AND scope = \(statement.bind(pipeline.table)))
                OR (kind <> 'records' AND scope = \(statement.bind(pipeline.name)))
            GROUP BY kind, processor, version
            """
        let rows = try await connection.run(statement, logger: logger).collect { try $0.decode((String, String, Int32, Int64).self) }
        func count(_ kind: String, _ processor: ProcessorDescriptor?) -> Int {
            Int(rows.first { $0.0 == kind && $0.1 == (processor?.name ?? "") && Int($0.2) == (processor?.version ?? 0) }?.3 ?? 0)
        }
        return PipelineCounts(
            records: count("records", nil),
            upToDate: pipeline.processors.map { count("current", $0) },
            failed: pipeline.processors.map { count("failed", $0) },
            backlog: pipeline.processors.map { processor in
                Int(rows.filter { $0.0 == "current" && $0.1 == processor.name && Int($0.2) != processor.version }.reduce(0) { $0 + $1.3 })
            }
        )
    }

    /// Per processor of the pipeline, in order, how many records it is up to date for: one pass over
    /// the pipeline's stamp rows.
    private static func recountUpToDate(_ pipeline: Pipeline, _ connection: PostgresConnection, _ logger: Logger) async throws -> [Int] {
        var statement = SQLStatement()
        statement.sql = """
            SELECT processor, version, count(*) FROM rederive_stamps WHERE pipeline = \(statement.bind(pipeline.name)) AND current
            GROUP BY processor, version
            """
        let rows = try await connection.run(statement, logger: logger).collect { try $0.decode((String, Int32, Int64).self) }
        return pipeline.processors.map { processor in
            Int(rows.first { $0.0 == processor.name && Int($0.1) == processor.version }?.2 ?? 0)
        }
    }

    private static func recountFailed(
        _ pipeline: Pipeline, _ processor: ProcessorDescriptor, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> Int {
        var statement = SQLStatement()
        statement.sql = """
            SELECT count(*) FROM rederive_failures WHERE pipeline = \(statement.bind(pipeline.name))
            AND processor = \(statement.bind(processor.name)) AND version = \(statement.bind(Int32(processor.version))) AND current
            """
        return try await connection.count(statement, logger: logger)
    }
}

/// A pipeline's counts as `status` shows them: its records, and per processor, in the pipeline's
/// order, those up to date and those failed at the processor's present version.
struct PipelineCounts {
    var records: Int
    var upToDate: [Int]
    var failed: [Int]
    /// Per processor, the records whose stamp is current at another version than its own: what
    /// a watcher drains as a backlog. Kept counts only; a recount leaves it empty.
    var backlog: [Int] = []

    func statuses(of pipeline: Pipeline) -> [ProcessorStatus] {
        pipeline.processors.indices.map { index in
            let processor = pipeline.processors[index]
            return ProcessorStatus(
                pipeline: pipeline.name, name: processor.name, version: processor.version, records: records,
                upToDate: upToDate[index], failed: failed[index]
            )
        }
    }
}
#endif
