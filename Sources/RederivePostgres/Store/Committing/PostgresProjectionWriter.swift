#if PostgreSQL
import PostgresNIO
import Rederive
import RederiveCodec

/// Stores, inside a commit's transaction, the projections of the payloads its accepted results were
/// derived from (``PostgresProjectionSchema``): each with the generation the commit was fenced by,
/// so that a projection is never kept for a payload other than the one it was encoded from.
struct PostgresProjectionWriter {
    let pipeline: Pipeline
    let statements: PreparedStatements

    /// One statement for every projection of a plan's step; the plan holds them only for accepted
    /// results of a pipeline that keeps projections.
    func write(_ written: [ProjectionWrite], _ connection: PostgresConnection, _ logger: Logger) async throws {
        guard let version = pipeline.projectionVersion, !written.isEmpty else { return }
        var statement = SQLStatement()
        statement.sql = """
            INSERT INTO rederive_projections AS p (pipeline, record_id, source, generation, version, checksum, payload_digest, bytes)
            SELECT \(statement.bind(pipeline.name)), u.id, \(statement.bind(pipeline.table)), u.generation, \(statement.bind(Int32(version))), u.checksum, u.digest, u.bytes
            FROM unnest(
                \(statement.bind(written.map(\.recordID))), \(statement.bind(written.map(\.generation))),
                \(statement.bind(written.map { PayloadCodec.digest($0.bytes) })), \(statement.bind(written.map(\.payloadDigest))),
                \(statement.bind(written.map { ByteBuffer(bytes: $0.bytes) }))
            ) AS u(id, generation, checksum, digest, bytes)
            ON CONFLICT (pipeline, record_id) DO UPDATE SET generation = excluded.generation, version = excluded.version,
                checksum = excluded.checksum, payload_digest = excluded.payload_digest, bytes = excluded.bytes
            """
        try await statements.run(statement, on: connection, logger: logger)
    }
}
#endif
