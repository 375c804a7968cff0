#if PostgreSQL
import PostgresNIO
import Rederive
import RederiveCodec
import RederiveSQL

/// The projections this store keeps beside the derived values (``PostgresProjectionSchema``), for
/// `status`, `verify --projections` and `rederive projections --drop`.
extension PostgresStore: ProjectionStoring {
    /// Counts the pipeline's projections written from the payload its record holds now, by its projection version.
    public func currentProjectionCount(_ pipeline: Pipeline) async throws -> Int {
        guard let version = pipeline.projectionVersion else { return 0 }
        var statement = SQLStatement()
        statement.sql = """
            SELECT count(*) FROM rederive_projections p
            JOIN rederive_records r ON r.source = \(statement.bind(pipeline.table)) AND r.record_id = p.record_id
                AND r.generation = p.generation
            WHERE p.pipeline = \(statement.bind(pipeline.name)) AND p.version = \(statement.bind(Int32(version)))
            """
        let logger = self.logger
        return try await withConnection("read") { connection in try await connection.count(statement, logger: logger) }
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
        return try await transaction("read", snapshot: true) { connection in
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
        return try await transaction("drop projections in") { connection in
            try await connection.count(statement, logger: logger)
        }
    }
}
#endif
