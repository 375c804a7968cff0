import Foundation
import GRDB
import Rederive

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

extension SQLiteStore {
    /// Writes payloads under their keys in one transaction: new keys are inserted, changed payloads
    /// replaced (their records become stale), identical payloads left alone.
    ///
    /// - Parameter payloads: Keys and payload bytes exactly as they are to be stored.
    public func importPayloads(_ payloads: [(key: String, payload: [UInt8])], into pipeline: Pipeline) async throws -> ImportCounts {
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
            for (name, payload) in payloads {
                let data = Data(payload)
                switch try DatabaseValue.fetchOne(lookup, arguments: [name]) {
                case nil:
                    try insert.execute(arguments: [name, data])
                    counts.inserted += 1
                case let stored? where stored == data.databaseValue:
                    counts.unchanged += 1
                default:
                    try replace.execute(arguments: [data, name])
                    counts.replaced += 1
                }
            }
            return counts
        }
    }
}
