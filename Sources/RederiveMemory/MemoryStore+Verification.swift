import Rederive
import Synchronization

/// Reading records as stored, for `Verifier`: payload, derived values and stamps, all as of one moment.
extension MemoryStore: VerificationSource {
    /// Up to `limit` records after `cursor`, in id order, as stored.
    public func storedRecords(of pipeline: Pipeline, after cursor: Int64?, limit: Int) async throws -> [StoredRecord] {
        state.withLock { state in
            let ids = (state.tables[pipeline.table]?.ids ?? []).filter { $0 > (cursor ?? .min) }.prefix(max(0, limit))
            return ids.compactMap { Self.storedRecord($0, pipeline, state) }
        }
    }

    /// The records with these ids that exist, in id order, as stored.
    public func storedRecords(of pipeline: Pipeline, ids: [Int64]) async throws -> [StoredRecord] {
        state.withLock { state in
            Set(ids).sorted().compactMap { Self.storedRecord($0, pipeline, state) }
        }
    }

    /// Up to `count` ids chosen at random, in id order.
    public func sampleRecordIDs(of pipeline: Pipeline, count: Int) async throws -> [Int64] {
        state.withLock { state in
            Array((state.tables[pipeline.table]?.ids ?? []).shuffled().prefix(max(0, count))).sorted()
        }
    }

    /// A record as stored; nil when it does not exist. Without a row of derived values, every column reads `NULL`.
    private static func storedRecord(_ id: Int64, _ pipeline: Pipeline, _ state: MemoryState) -> StoredRecord? {
        guard let record = state.tables[pipeline.table]?.records[id] else { return nil }
        return StoredRecord(
            recordID: id, key: record.key, payload: record.payload,
            values: pipeline.processors.map { processor in
                state.storedValues(of: pipeline, processor.columns, id) ?? processor.columns.map { _ in .null }
            },
            stamps: pipeline.processors.map { processor in
                state.stamps[ProcessorRecord(pipeline: pipeline.name, processor: processor.name, recordID: id)].map {
                    StoredRecord.Stamp(version: $0.version, current: $0.current)
                }
            }
        )
    }
}
