import Rederive
import Synchronization

/// Failure reports and invalidation.
extension MemoryStore {
    /// The current failures of the processors' current versions, in record and processor order.
    public func failures(of pipeline: Pipeline, filter: FailureFilter) async throws -> [RecordFailure] {
        state.withLock { state in
            var reports: [RecordFailure] = []
            for processor in pipeline.processors where filter.processors?.contains(processor.name) ?? true {
                for (key, failure) in state.failures
                where key.pipeline == pipeline.name && key.processor == processor.name && failure.version == processor.version
                    && failure.current && (filter.runID == nil || failure.runID == filter.runID) {
                    reports.append(RecordFailure(
                        pipeline: pipeline.name, recordID: key.recordID,
                        key: state.tables[pipeline.table]?.records[key.recordID]?.key, processor: processor.name,
                        version: processor.version, kind: failure.kind, message: failure.message, runID: failure.runID,
                        at: failure.failedAt
                    ))
                }
            }
            let order = Dictionary(uniqueKeysWithValues: pipeline.processors.enumerated().map { ($1.name, $0) })
            return reports.sorted { ($0.recordID, order[$0.processor] ?? 0) < ($1.recordID, order[$1.processor] ?? 0) }
        }
    }

    /// Makes the named processors' stamps and failures not current, for every record or those keyed;
    /// returns how many records were marked. An unknown processor or key marks nothing and throws.
    public func invalidate(_ pipeline: Pipeline, processors: [String]?, keys: [String]?) async throws -> Int {
        let names = processors ?? pipeline.processors.map(\.name)
        if let unknown = names.first(where: { pipeline.processor(named: $0) == nil }) {
            throw RederiveError(.unknownName, "pipeline \"\(pipeline.name)\" has no processor named \"\(unknown)\"")
        }
        if keys != nil, pipeline.keyColumn == nil {
            throw RederiveError(.invalidArgument, "pipeline \"\(pipeline.name)\" has no key column to select records by")
        }
        return try state.withLock { state in
            let table = state.tables[pipeline.table] ?? MemoryTable()
            var recordIDs: Set<Int64>?
            if let keys {
                let missing = keys.filter { table.keys[$0] == nil }
                if !missing.isEmpty {
                    throw RederiveError(
                        .unknownName,
                        "table \"\(pipeline.table)\" has no record with key \(missing.map { "\"\($0)\"" }.joined(separator: ", "))"
                    )
                }
                recordIDs = Set(keys.compactMap { table.keys[$0] })
            }
            let selected = Set(names)
            func matches(_ key: ProcessorRecord) -> Bool {
                key.pipeline == pipeline.name && selected.contains(key.processor) && (recordIDs?.contains(key.recordID) ?? true)
            }
            for key in state.stamps.keys where matches(key) {
                state.stamps[key]?.current = false
            }
            for key in state.failures.keys where matches(key) {
                state.failures[key]?.current = false
            }
            state.revision += 1
            return keys?.count ?? table.records.count
        }
    }
}
