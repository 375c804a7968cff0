import Foundation
import GRDB
import Rederive
import RederiveSQL

/// Writing payloads under their keys, as `rederive import` and `generate` do.
extension SQLiteStore: PayloadImporting {
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
                case let stored? where Self.holds(item, stored, data: data):
                    counts.unchanged += 1
                default:
                    try replace.execute(arguments: [data, item.key])
                    counts.replaced += 1
                }
            }
            return counts
        }
    }

    /// Whether `stored` already holds the item (`ImportItem/isHeld(by:)`), comparing equal bytes
    /// without copying them out first.
    private static func holds(_ item: ImportItem, _ stored: DatabaseValue, data: Data) -> Bool {
        stored == data.databaseValue || Data.fromDatabaseValue(stored).map { item.isHeld(by: [UInt8]($0)) } == true
    }
}
