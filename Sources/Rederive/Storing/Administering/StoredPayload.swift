/// A record's key and payload as they are stored, read for export.
public struct StoredPayload: Sendable {
    /// The record's integer id in its pipeline's table.
    public let recordID: Int64
    /// The value of the pipeline's key column; nil when NULL.
    public let key: String?
    /// The stored payload bytes, compressed or not; nil when NULL or when only keys were asked for.
    public let payload: [UInt8]?

    /// A record's key and payload as a store reads them.
    public init(recordID: Int64, key: String?, payload: [UInt8]?) {
        self.recordID = recordID
        self.key = key
        self.payload = payload
    }
}
