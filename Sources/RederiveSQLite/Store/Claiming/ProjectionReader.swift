import GRDB
import Rederive
import RederiveCodec
import RederiveSQL

/// Reads a record's stored projection for derivation, in the reader's transaction, and says whether
/// it serves: written from the payload the record holds now (its generation), by the pipeline's
/// projection version, its bytes matching their checksum. Otherwise it says why not, and the
/// record is derived from its payload.
struct ProjectionReader {
    /// What a record's stored projection is worth to this derivation.
    enum Found {
        /// It serves: the projection, and the generation it belongs to.
        case current(StoredProjection, generation: Int64)
        /// It does not serve, for this reason.
        case fallback(ProjectionFallback)
    }

    private let pipeline: Pipeline
    private let version: Int
    private let statement: Statement

    init(_ pipeline: Pipeline, _ tables: PipelineTables, _ db: Database) throws {
        version = pipeline.projectionVersion ?? 0
        statement = try db.cachedStatement(sql: """
            SELECT r.generation, \(Self.columns)
            FROM rederive_records r
            LEFT JOIN rederive_projections p ON p.pipeline = ? AND p.record_id = r.record_id
            WHERE r.source = ? AND r.record_id = ?
            """)
        self.pipeline = pipeline
    }

    /// The record's projection, or why it does not serve; nil when the record is gone.
    func read(_ recordID: Int64) throws -> Found? {
        guard let row = try Row.fetchOne(statement, arguments: [pipeline.name, pipeline.table, recordID]) else { return nil }
        return Self.judge(row, at: 1, generation: row[0], version: version)
    }

    /// The stored projection's columns, as a query selects them from `rederive_projections p` for
    /// ``judge(_:at:generation:version:)``.
    static let columns = "p.generation, p.version, p.checksum, p.payload_digest, p.bytes"

    /// Whether the projection in the ``columns`` of `row` from `start` on serves a record of
    /// `generation` for projection version `version`; those columns are NULL when it has none.
    static func judge(_ row: Row, at start: Int, generation: Int64, version: Int) -> Found {
        guard let written: Int64 = row[start] else { return .fallback(.missing) }
        guard written == generation else { return .fallback(.payloadChanged) }
        guard row[start + 1] as Int == version else { return .fallback(.versionChanged) }
        let bytes = SQLiteStore.payloadBytes(row, at: start + 4) ?? []
        guard PayloadCodec.digest(bytes) == row[start + 2] as Int64 else { return .fallback(.checksumMismatch) }
        return .current(StoredProjection(bytes: bytes, payloadDigest: row[start + 3]), generation: generation)
    }
}
