import Dispatch
import Rederive
import Synchronization

/// Writing payloads under their keys, as `rederive import` does.
extension MemoryStore: PayloadImporting {
    /// Writes the items `next` returns, until it returns nil, in one transaction: new keys are
    /// inserted, changed payloads replaced (their records become stale), and payloads already stored
    /// left alone: the same bytes, or bytes that decode to the item's content (`ImportItem.isHeld(by:)`).
    ///
    /// `next` may block until its next item is ready: it is called off the concurrency pool. When it
    /// throws, nothing of the import is stored.
    ///
    /// - Throws: `RederiveError.Code.invalidArgument` when the pipeline has no key column.
    public func importPayloads(into pipeline: Pipeline, from next: @escaping @Sendable () throws -> ImportItem?) async throws -> ImportCounts {
        guard pipeline.keyColumn != nil else {
            throw RederiveError(.invalidArgument, "pipeline \"\(pipeline.name)\" has no key column to import files under")
        }
        // `next` may block: it is read on a thread of its own, served by Dispatch's overcommitting pool,
        // never one of the concurrency pool's.
        let items = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue(label: "rederive.memory.import").async {
                continuation.resume(with: Result {
                    var items: [ImportItem] = []
                    while let item = try next() { items.append(item) }
                    return items
                })
            }
        }
        return try state.withLock { state in
            var counts = ImportCounts()
            for item in items {
                if let id = state.tables[pipeline.table]?.keys[item.key], let stored = state.tables[pipeline.table]?.records[id] {
                    if item.isHeld(by: stored.payload) {
                        counts.unchanged += 1
                    } else {
                        state.tables[pipeline.table]?.records[id]?.payload = item.payload
                        state.renew(id, of: pipeline.table)
                        counts.replaced += 1
                    }
                } else {
                    _ = try Self.insert(item.payload, key: item.key, into: pipeline, &state)
                    counts.inserted += 1
                }
            }
            return counts
        }
    }
}
