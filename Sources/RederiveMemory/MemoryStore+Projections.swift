import Rederive
import RederiveCodec
import Synchronization

/// The projections the store keeps beside the derived values, as the SQLite store does.
extension MemoryStore: ProjectionStoring {
    /// Counts the pipeline's projections written from the payload its record holds now, by its projection version.
    public func currentProjectionCount(_ pipeline: Pipeline) async throws -> Int {
        state.withLock { state in Self.current(pipeline, state).count }
    }

    /// Up to `limit` current projections at random, with their records' keys and payloads.
    public func projectionSamples(_ pipeline: Pipeline, limit: Int) async throws -> [ProjectionSample] {
        state.withLock { state in
            Self.current(pipeline, state).shuffled().prefix(limit).map { id, projection in
                let record = state.tables[pipeline.table]?.records[id]
                return ProjectionSample(
                    recordID: id, key: record?.key, payload: record?.payload, projection: projection.bytes,
                    checksumMatches: PayloadCodec.digest(projection.bytes) == projection.checksum
                )
            }
        }
    }

    /// Deletes the pipeline's projections.
    public func dropProjections(_ pipeline: Pipeline) async throws -> Int {
        state.withLock { state in
            let before = state.projections.count
            state.projections = state.projections.filter { $0.key.pipeline != pipeline.name }
            return before - state.projections.count
        }
    }

    /// The pipeline's projections of its records' current payloads, by its projection version, by record.
    private static func current(_ pipeline: Pipeline, _ state: MemoryState) -> [(Int64, MemoryProjection)] {
        guard let version = pipeline.projectionVersion, let records = state.tables[pipeline.table]?.records else { return [] }
        return state.projections.compactMap { key, projection in
            guard key.pipeline == pipeline.name, projection.version == version,
                  projection.generation == records[key.recordID]?.generation
            else { return nil }
            return (key.recordID, projection)
        }
    }
}
