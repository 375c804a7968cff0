import Foundation

/// The bytes of a database file and its WAL, to prove that something left them alone.
package struct DatabaseFiles: Equatable {
    package let database: Data
    package let wal: Data?

    package init(_ path: String) throws {
        database = try Data(contentsOf: URL(fileURLWithPath: path))
        wal = try? Data(contentsOf: URL(fileURLWithPath: path + "-wal"))
    }
}
