import Foundation
import GRDB
import RederiveCodec

/// Runs `body` with the path of a database file in a fresh temporary directory, removed afterwards.
package func withTemporaryDatabase<T>(_ body: (String) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("rederive-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory.appendingPathComponent("test.sqlite").path)
}

/// A connection of "another program": plain GRDB, no rederive code, waiting on locks like an app would.
package func appConnection(_ path: String) throws -> DatabaseQueue {
    var configuration = Configuration()
    configuration.busyMode = .timeout(10)
    return try DatabaseQueue(path: path, configuration: configuration)
}

/// Inserts records the way an app does: only a key and a payload.
package func insertRecords(_ records: [(key: String, json: String)], format: PayloadFormat = .zlib, into path: String, table: String = "items") throws {
    let db = try appConnection(path)
    try db.write { db in
        for record in records {
            try db.execute(
                sql: "INSERT INTO \(table) (key, payload) VALUES (?, ?)",
                arguments: [record.key, Data(PayloadCodec.encode(Array(record.json.utf8), as: format))]
            )
        }
    }
}

/// Replaces one record's payload from another connection.
package func replacePayload(key: String, json: String, in path: String, table: String = "items") throws {
    let db = try appConnection(path)
    try db.write { db in
        try db.execute(
            sql: "UPDATE \(table) SET payload = ? WHERE key = ?",
            arguments: [Data(PayloadCodec.encode(Array(json.utf8))), key]
        )
    }
}

/// Executes SQL from another connection, as an app or a person with `sqlite3` would.
package func appExecute(_ path: String, _ sql: String, _ arguments: StatementArguments = []) throws {
    let db = try appConnection(path)
    try db.write { db in try db.execute(sql: sql, arguments: arguments) }
}
