#if PostgreSQL
import PostgresNIO
import Rederive
import RederiveCodec
import RederiveSQL

/// Stores, inside a commit's transaction, the projections of the payloads its accepted results were
/// derived from (``PostgresProjectionSchema``): each with the generation the commit was fenced by,
/// so that a projection is never kept for a payload other than the one it was encoded from.
struct PostgresProjectionWriter {
    let pipeline: Pipeline
    let statements: PreparedStatements

    /// One statement for every result that carries a projection; nothing for a pipeline without one.
    /// `results` must be the commit's accepted results: still claimed, at the generation they were read at.
    func write(_ results: [RecordResult], _ connection: PostgresConnection, _ logger: Logger) async throws {
        guard let version = pipeline.projectionVersion else { return }
        let written = results.compactMap { result in result.projection.map { (result, $0) } }
        guard !written.isEmpty else { return }
        var statement = SQLStatement()
        statement.sql = """
            INSERT INTO rederive_projections AS p (pipeline, record_id, source, generation, version, checksum, payload_digest, bytes)
            SELECT \(statement.bind(pipeline.name)), u.id, \(statement.bind(pipeline.table)), u.generation, \(statement.bind(Int32(version))), u.checksum, u.digest, u.bytes
            FROM unnest(
                \(statement.bind(written.map(\.0.recordID))), \(statement.bind(written.map(\.0.generation))),
                \(statement.bind(written.map { PayloadCodec.digest($0.1) })), \(statement.bind(written.map(\.0.payloadDigest))),
                \(statement.bind(written.map { ByteBuffer(bytes: $0.1) }))
            ) AS u(id, generation, checksum, digest, bytes)
            ON CONFLICT (pipeline, record_id) DO UPDATE SET generation = excluded.generation, version = excluded.version,
                checksum = excluded.checksum, payload_digest = excluded.payload_digest, bytes = excluded.bytes
            """
        try await statements.run(statement, on: connection, logger: logger)
    }
}
#endif
