import RederiveCodec
import Synchronization

/// One payload to import under a key.
public struct ImportItem: Sendable {
    /// The record's key: the value of the pipeline's key column.
    public var key: String
    /// The bytes exactly as they are to be stored.
    public var payload: [UInt8]
    /// What `payload` decodes to, when the caller has it: a stored payload that decodes to the same
    /// bytes counts as unchanged even when it was compressed differently (by another library or level).
    public var content: [UInt8]?

    /// An item to store `payload` under `key`; give `content` when the caller has the uncompressed bytes.
    public init(key: String, payload: [UInt8], content: [UInt8]? = nil) {
        self.key = key
        self.payload = payload
        self.content = content
    }

    /// Whether `stored` already holds this item: the same bytes, or bytes that decode to its content.
    public func isHeld(by stored: [UInt8]) -> Bool {
        if stored == payload { return true }
        guard let content else { return false }
        // A payload decoding to more than the content differs; the cap stops inflating there.
        return (try? PayloadCodec(maximumSize: content.count).decode(stored)) == content
    }

    /// A source that hands out `payloads` one by one, in order, then nil: what a store's streaming
    /// import takes, for payloads already in memory.
    public static func source(of payloads: [(key: String, payload: [UInt8])]) -> @Sendable () -> ImportItem? {
        let items = payloads.map { ImportItem(key: $0.key, payload: $0.payload) }
        let next = Mutex(0)
        return {
            next.withLock { index in
                defer { index += 1 }
                return index < items.count ? items[index] : nil
            }
        }
    }
}
