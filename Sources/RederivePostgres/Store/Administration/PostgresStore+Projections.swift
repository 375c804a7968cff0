#if PostgreSQL
import PostgresNIO
import Rederive
import RederiveCodec
import RederiveSQL

/// The projections this store keeps beside the derived values (``PostgresProjectionSchema``), for
/// `status`, `verify --projections` and `rederive projections --drop`.
extension PostgresStore: ProjectionStoring {
    /// Counts the pipeline's projections written from the payload its record holds now, by its
    /// projection version: from the count that triggers keep as projections and records are written, a
    /// few rows however many records there are.
    public func currentProjectionCount(_ pipeline: Pipeline) async throws -> Int {
        guard pipeline.projectionVersion != nil else { return 0 }
        let logger = self.logger
        return try await withConnection("read") { connection in try await Self.keptProjectionCount(pipeline, connection, logger) }
    }

    /// The kept count of current projections (as ``currentProjectionCount(_:)`` reads it) beside the
    /// same count from a join of every projection to its record, both in one snapshot: they differ
    /// only where the kept count went wrong.
    package func projectionCountCheck(of pipeline: Pipeline) async throws -> (kept: Int, recounted: Int) {
        guard let version = pipeline.projectionVersion else { return (0, 0) }
        let logger = self.logger
        return try await transaction("read", snapshot: true) { connection in
            var statement = SQLStatement()
            statement.sql = """
                SELECT count(*) FROM rederive_projections p
                JOIN rederive_records r ON r.source = \(statement.bind(pipeline.table)) AND r.record_id = p.record_id
                    AND r.generation = p.generation
                WHERE p.pipeline = \(statement.bind(pipeline.name)) AND p.version = \(statement.bind(Int32(version)))
                """
            let kept = try await Self.keptProjectionCount(pipeline, connection, logger)
            return (kept, try await connection.count(statement, logger: logger))
        }
    }

    /// The pipeline's kept count at its projection version: the total plus pending deltas, one statement.
    static func keptProjectionCount(_ pipeline: Pipeline, _ connection: PostgresConnection, _ logger: Logger) async throws -> Int {
        guard let version = pipeline.projectionVersion else { return 0 }
        var statement = SQLStatement()
        let key = "kind = 'projections' AND scope = \(statement.bind(pipeline.name)) AND processor = '' AND version = \(statement.bind(Int32(version)))"
        statement.sql = """
            SELECT coalesce(sum(count), 0)::bigint FROM (
                SELECT count FROM rederive_counts WHERE \(key)
                UNION ALL SELECT delta FROM rederive_count_deltas WHERE \(key)
            ) c
            """
        return try await connection.count(statement, logger: logger)
    }

    /// Reads up to `limit` current projections at random, with their records' keys and payloads, in one snapshot.
    public func projectionSamples(_ pipeline: Pipeline, limit: Int) async throws -> [ProjectionSample] {
        guard let version = pipeline.projectionVersion else { return [] }
        let tables = PostgresPipelineTables(pipeline)
        let payload = try await payloadColumn(tables).reader(tables.payload)
        var statement = SQLStatement()
        statement.sql = """
            SELECT p.record_id, \(tables.keyExpression), \(payload), p.bytes, p.checksum
            FROM rederive_projections p
            JOIN rederive_records r ON r.source = \(statement.bind(pipeline.table)) AND r.record_id = p.record_id
                AND r.generation = p.generation
            JOIN \(tables.table) t ON t.\(tables.id) = p.record_id
            WHERE p.pipeline = \(statement.bind(pipeline.name)) AND p.version = \(statement.bind(Int32(version)))
            ORDER BY random() LIMIT \(statement.bind(Int64(limit)))
            """
        let logger = self.logger
        return try await transaction("read", snapshot: true) { [statement] connection in
            try await connection.run(statement, logger: logger).collect { row in
                let (id, key, payload, bytes, checksum) = try row.decode((Int64, String?, ByteBuffer?, ByteBuffer, Int64).self)
                let projection = Array(bytes.readableBytesView)
                return ProjectionSample(
                    recordID: id, key: key, payload: payload.map { Array($0.readableBytesView) }, projection: projection,
                    checksumMatches: PayloadCodec.digest(projection) == checksum
                )
            }
        }
    }

    /// Deletes the pipeline's projections.
    public func dropProjections(_ pipeline: Pipeline) async throws -> Int {
        var statement = SQLStatement()
        statement.sql = """
            WITH dropped AS (DELETE FROM rederive_projections WHERE pipeline = \(statement.bind(pipeline.name)) RETURNING 1)
            SELECT count(*) FROM dropped
            """
        let logger = self.logger
        return try await transaction("drop projections in") { [statement] connection in
            try await connection.count(statement, logger: logger)
        }
    }
}
#endif
