import Rederive
import Synchronization

/// Reading keys and payloads as stored, a page at a time, for export: reads only, never a write.
extension MemoryStore: PayloadExporting {
    /// Up to `limit` records of `pipeline` with ids greater than `cursor`, in id order: their key and,
    /// when `includingPayloads`, their payload as stored.
    ///
    /// - Parameters:
    ///   - pipeline: The pipeline whose records are read.
    ///   - condition: Must be nil: the in-memory store holds no SQL table to evaluate a condition on.
    ///   - cursor: The id of the last record of the previous page; nil for the first page.
    ///   - limit: The most records in the page.
    ///   - includingPayloads: Whether to read the payloads too, or only the keys.
    /// - Throws: `RederiveError.Code.invalidArgument` naming the condition when one is given.
    public func storedPayloads(
        of pipeline: Pipeline, matching condition: String?, after cursor: Int64?, limit: Int, includingPayloads: Bool
    ) async throws -> [StoredPayload] {
        if let condition {
            throw RederiveError(
                .invalidArgument,
                "cannot select records of \(pipeline.table) where \"\(condition)\": the in-memory store evaluates no SQL"
            )
        }
        return state.withLock { state in
            guard let table = state.tables[pipeline.table] else { return [] }
            return table.ids.filter { $0 > (cursor ?? .min) }.prefix(max(0, limit)).map { id in
                let record = table.records[id]!
                return StoredPayload(recordID: id, key: record.key, payload: includingPayloads ? record.payload : nil)
            }
        }
    }
}
