#if PostgreSQL
import PostgresNIO
import Rederive
import RederiveCodec
import RederiveSQL

/// Reads, in a claim's transaction, the stored projections of the picked records whose payload
/// processors may run, and says of each whether it serves: written from the payload the record holds
/// now (the generation the claim picked, which the claim's row locks keep), by the pipeline's
/// projection version, its bytes matching their checksum. A record whose projection serves is handed
/// out without its payload, which the claim then never reads; the others fall back to the payload,
/// with the reason.
struct PostgresProjectionReader {
    /// What a record's stored projection is worth to this derivation.
    enum Found: Sendable {
        /// It serves instead of the payload.
        case current(StoredProjection)
        /// It does not serve, for this reason: the payload is read.
        case fallback(ProjectionFallback)
    }

    let pipeline: Pipeline
    let version: Int
    let statements: PreparedStatements

    /// A reader for the plan's pipeline; nil when the plan derives from payloads alone.
    init?(_ plan: RunPlan, statements: PreparedStatements) {
        guard plan.readsProjections, let version = plan.pipeline.projectionVersion else { return nil }
        self.pipeline = plan.pipeline
        self.version = version
        self.statements = statements
    }

    /// Each of `picks`' projections, or why it does not serve, by record id. The bytes of a row that
    /// cannot serve (another generation or version) are not sent.
    func read(_ picks: [PendingPick], _ connection: PostgresConnection, _ logger: Logger) async throws -> [Int64: Found] {
        guard !picks.isEmpty else { return [:] }
        var statement = SQLStatement()
        let wanted = statement.bind(Int32(version))
        statement.sql = """
            SELECT u.id, p.generation = u.generation, p.version = \(wanted), p.checksum, p.payload_digest,
                CASE WHEN p.generation = u.generation AND p.version = \(wanted) THEN p.bytes END
            FROM unnest(\(statement.bind(picks.map(\.recordID))), \(statement.bind(picks.map(\.generation)))) AS u(id, generation)
            JOIN rederive_projections p ON p.pipeline = \(statement.bind(pipeline.name)) AND p.record_id = u.id
            """
        var found: [Int64: Found] = [:]
        for row in try await statements.run(statement, on: connection, logger: logger) {
            let (id, sameGeneration, sameVersion, checksum, payloadDigest, bytes) = try row.decode(
                (Int64, Bool, Bool, Int64, Int64, ByteBuffer?).self
            )
            found[id] = Self.judge(sameGeneration: sameGeneration, sameVersion: sameVersion, checksum: checksum, payloadDigest: payloadDigest, bytes)
        }
        for pick in picks where found[pick.recordID] == nil {
            found[pick.recordID] = .fallback(.missing)
        }
        return found
    }

    /// Whether a stored row serves: of the record's generation, of the pipeline's version, and its
    /// bytes (sent only then) matching the checksum stored with them.
    static func judge(sameGeneration: Bool, sameVersion: Bool, checksum: Int64, payloadDigest: Int64, _ bytes: ByteBuffer?) -> Found {
        guard sameGeneration else { return .fallback(.payloadChanged) }
        guard sameVersion, let bytes else { return .fallback(.versionChanged) }
        let projection = Array(bytes.readableBytesView)
        guard PayloadCodec.digest(projection) == checksum else { return .fallback(.checksumMismatch) }
        return .current(StoredProjection(bytes: projection, payloadDigest: payloadDigest))
    }
}

extension PostgresProjectionReader.Found {
    /// The projection, when it serves.
    var current: StoredProjection? {
        if case .current(let projection) = self { projection } else { nil }
    }

    /// Why it does not serve; nil when it does.
    var fallback: ProjectionFallback? {
        if case .fallback(let reason) = self { reason } else { nil }
    }
}
#endif
