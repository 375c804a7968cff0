import Rederive
import Synchronization

/// Reading stored derived values, for previews: reads only, never a write.
extension MemoryStore: StoredValueReading {
    /// Whether ``prepare(_:)`` has yet to create the pipeline's table, the destination of its values or
    /// one of its columns.
    public func needsPreparation(_ pipeline: Pipeline) async throws -> Bool {
        state.withLock { state in
            guard state.tables[pipeline.table] != nil, let destination = state.destinations[Self.destinationName(of: pipeline)] else {
                return true
            }
            return pipeline.outputColumns.contains { destination.defaults[$0.name] == nil }
        }
    }

    /// The records' keys and output values; nil values for a record without a row of derived values.
    public func storedRows(of pipeline: Pipeline, recordIDs: [Int64]) async throws -> [Int64: StoredRow] {
        state.withLock { state in
            var rows: [Int64: StoredRow] = [:]
            for id in recordIDs {
                guard let record = state.tables[pipeline.table]?.records[id] else { continue }
                rows[id] = StoredRow(key: record.key, values: state.storedValues(of: pipeline, pipeline.outputColumns, id))
            }
            return rows
        }
    }
}
