/// How an import changed a pipeline's table, as ``PayloadImporting`` reports it.
public struct ImportCounts: Sendable, Hashable {
    /// Payloads stored under keys the table did not hold.
    public var inserted = 0
    /// Stored payloads replaced by different ones: their records become stale.
    public var replaced = 0
    /// Payloads already stored, as the same bytes or bytes that decode to the same content: left alone.
    public var unchanged = 0

    /// Counts of an import.
    public init(inserted: Int = 0, replaced: Int = 0, unchanged: Int = 0) {
        self.inserted = inserted
        self.replaced = replaced
        self.unchanged = unchanged
    }
}
