import GRDB
import Rederive
import RederiveSQLite

/// Reads what rederive stored, with plain SQL, independently of the store's own queries.
package struct Inspection {
    package let path: String

    package init(path: String) {
        self.path = path
    }

    package func value<T: DatabaseValueConvertible>(_ column: String, key: String, table: String = "items_derived", as type: T.Type = T.self) throws -> T? {
        let db = try appConnection(path)
        return try db.read { db in
            let join = table == "items"
                ? "SELECT \(column) FROM items WHERE key = ?"
                : "SELECT d.\(column) FROM items i JOIN \(table) d ON d.id = i.id WHERE i.key = ?"
            return try T.fetchOne(db, sql: join, arguments: [key])
        }
    }

    package func count(_ sql: String, _ arguments: StatementArguments = []) throws -> Int {
        let db = try appConnection(path)
        return try db.read { db in try Int.fetchOne(db, sql: sql, arguments: arguments) ?? 0 }
    }
}

package func run(
    _ pipeline: Pipeline,
    at path: String,
    _ configuration: Runner.Configuration = Runner.Configuration(parallelism: 4, batchSize: 7),
    progress: any ProgressReporter = NoProgress()
) async throws -> RunSummary {
    let store = try SQLiteStore(path: path)
    return try await Runner(store: store, pipelines: [pipeline], configuration: configuration, progress: progress).run()
}

package func prepare(_ pipeline: Pipeline, at path: String) async throws {
    try await SQLiteStore(path: path).prepare(pipeline)
}
