import GRDB
import Rederive
import RederiveCodec
import RederiveSQL

/// The projections this store keeps beside the derived values (``ProjectionSchema``).
extension SQLiteStore: ProjectionStoring {
    /// Counts the pipeline's projections written from the payload its record holds now, by its projection version.
    public func currentProjectionCount(_ pipeline: Pipeline) async throws -> Int {
        guard let version = pipeline.projectionVersion else { return 0 }
        return try await read { db in
            guard try db.tableExists("rederive_projections") else { return 0 }
            return try Int.fetchOne(db, sql: """
                SELECT count(*) FROM rederive_projections p
                JOIN rederive_records r ON r.source = ? AND r.record_id = p.record_id AND r.generation = p.generation
                WHERE p.pipeline = ? AND p.version = ?
                """, arguments: [pipeline.table, pipeline.name, version]) ?? 0
        }
    }

    /// Reads up to `limit` current projections at random, with their records' keys and payloads.
    public func projectionSamples(_ pipeline: Pipeline, limit: Int) async throws -> [ProjectionSample] {
        guard let version = pipeline.projectionVersion else { return [] }
        let tables = PipelineTables(pipeline)
        return try await read { db in
            guard try db.tableExists("rederive_projections") else { return [] }
            let rows = try Row.fetchAll(db, sql: """
                SELECT p.record_id, \(tables.keyExpression), t.\(tables.payload), p.bytes, p.checksum
                FROM rederive_projections p
                JOIN rederive_records r ON r.source = ? AND r.record_id = p.record_id AND r.generation = p.generation
                JOIN \(tables.table) t ON t.\(tables.id) = p.record_id
                WHERE p.pipeline = ? AND p.version = ?
                ORDER BY random() LIMIT ?
                """, arguments: [pipeline.table, pipeline.name, version, limit])
            return rows.map { row in
                let bytes = Self.payloadBytes(row, at: 3) ?? []
                return ProjectionSample(
                    recordID: row[0], key: RecordKey.text(row, at: 1), payload: Self.payloadBytes(row, at: 2), projection: bytes,
                    checksumMatches: PayloadCodec.digest(bytes) == row[4] as Int64
                )
            }
        }
    }

    /// Deletes the pipeline's projections.
    public func dropProjections(_ pipeline: Pipeline) async throws -> Int {
        try await write { db in
            guard try db.tableExists("rederive_projections") else { return 0 }
            try db.execute(sql: "DELETE FROM rederive_projections WHERE pipeline = ?", arguments: [pipeline.name])
            return db.changesCount
        }
    }
}
