/// A store that writes payloads under their keys: what `rederive import` and `generate` use.
public protocol PayloadImporting: Sendable {
    /// Writes the items `next` returns, until it returns nil, in one transaction: new keys are
    /// inserted, changed payloads replaced (their records become stale, as after any change of a
    /// payload), and payloads already stored left alone: the same bytes, or bytes that decode to the
    /// item's ``ImportItem/content`` (``ImportItem/isHeld(by:)``).
    ///
    /// `next` may block until its next item is ready, so that items prepared elsewhere stream in
    /// without all being held at once, so the store calls it off the concurrency pool. When it throws,
    /// or any write fails, nothing of the import is stored.
    ///
    /// - Throws: ``RederiveError/Code/invalidArgument`` when the pipeline has no key column.
    func importPayloads(into pipeline: Pipeline, from next: @escaping @Sendable () throws -> ImportItem?) async throws -> ImportCounts
}

extension PayloadImporting {
    /// Writes payloads already in memory under their keys, in one transaction, as
    /// ``importPayloads(into:from:)`` does. A helper, never a requirement's default.
    ///
    /// - Parameters:
    ///   - payloads: Keys and payload bytes exactly as they are to be stored.
    ///   - pipeline: The pipeline whose table the payloads go into.
    public func importPayloads(_ payloads: [(key: String, payload: [UInt8])], into pipeline: Pipeline) async throws -> ImportCounts {
        try await importPayloads(into: pipeline, from: ImportItem.source(of: payloads))
    }
}
