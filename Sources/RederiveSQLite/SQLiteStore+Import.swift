import Foundation
import GRDB
import Rederive
import RederiveCodec
import Synchronization

/// How an import changed the table.
public struct ImportCounts: Sendable, Hashable {
    public var inserted = 0
    public var replaced = 0
    public var unchanged = 0

    public init(inserted: Int = 0, replaced: Int = 0, unchanged: Int = 0) {
        self.inserted = inserted
        self.replaced = replaced
        self.unchanged = unchanged
    }
}

/// One payload to import under a key.
public struct ImportItem: Sendable {
    public var key: String
    /// The bytes exactly as they are to be stored.
    public var payload: [UInt8]
    /// What `payload` decodes to, when the caller has it: a stored payload that decodes to the same
    /// bytes counts as unchanged even when it was compressed differently (by another library or level).
    public var content: [UInt8]?

    public init(key: String, payload: [UInt8], content: [UInt8]? = nil) {
        self.key = key
        self.payload = payload
        self.content = content
    }
}

extension SQLiteStore {
    /// Writes payloads under their keys in one transaction: new keys are inserted, changed payloads
    /// replaced (their records become stale), identical payloads left alone.
    ///
    /// - Parameter payloads: Keys and payload bytes exactly as they are to be stored.
    public func importPayloads(_ payloads: [(key: String, payload: [UInt8])], into pipeline: Pipeline) async throws -> ImportCounts {
        let items = payloads.map { ImportItem(key: $0.key, payload: $0.payload) }
        let next = Mutex(0)
        return try await importPayloads(into: pipeline) {
            next.withLock { index in
                defer { index += 1 }
                return index < items.count ? items[index] : nil
            }
        }
    }

    /// Writes the items `next` returns, until it returns nil, in one transaction: new keys are
    /// inserted, changed payloads replaced (their records become stale), identical ones left alone.
    ///
    /// `next` runs on the writing thread and may block until its next item is ready, so that items
    /// prepared elsewhere stream in without all being held at once. When it throws, or any write
    /// fails, the transaction rolls back and nothing of the import is stored.
    public func importPayloads(
        into pipeline: Pipeline, from next: @escaping @Sendable () throws -> ImportItem?
    ) async throws -> ImportCounts {
        let tables = PipelineTables(pipeline)
        guard let key = tables.key else {
            throw RederiveError(.invalidArgument, "pipeline \"\(pipeline.name)\" has no key column to import files under")
        }
        return try await write { db in
            let lookup = try db.cachedStatement(
                sql: "SELECT \(tables.payload) FROM \(tables.table) WHERE \(key) = ?"
            )
            let insert = try db.cachedStatement(
                sql: "INSERT INTO \(tables.table) (\(key), \(tables.payload)) VALUES (?, ?)"
            )
            let replace = try db.cachedStatement(
                sql: "UPDATE \(tables.table) SET \(tables.payload) = ? WHERE \(key) = ?"
            )
            var counts = ImportCounts()
            while let item = try next() {
                let data = Data(item.payload)
                switch try DatabaseValue.fetchOne(lookup, arguments: [item.key]) {
                case nil:
                    try insert.execute(arguments: [item.key, data])
                    counts.inserted += 1
                case let stored? where Self.holdsSameContent(stored, as: item, data: data):
                    counts.unchanged += 1
                default:
                    try replace.execute(arguments: [data, item.key])
                    counts.replaced += 1
                }
            }
            return counts
        }
    }

    /// Whether a stored payload is the item's: the same bytes, or bytes that decode to its content.
    private static func holdsSameContent(_ stored: DatabaseValue, as item: ImportItem, data: Data) -> Bool {
        if stored == data.databaseValue { return true }
        guard let content = item.content, let bytes = Data.fromDatabaseValue(stored).map({ [UInt8]($0) }) else { return false }
        // A payload decoding to more than the content differs; the cap stops inflating there.
        return (try? PayloadCodec(maximumSize: content.count).decode(bytes)) == content
    }
}
