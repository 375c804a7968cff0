import Foundation
import GRDB

/// What the hostile-database tests look at in a case's directory: the database's bytes and journal
/// mode, and the files present.
enum HostileFiles {
    /// Moves everything a `-wal` holds into the file itself and closes, so that the file alone is the
    /// database. A file SQLite cannot open is left as it is.
    static func checkpoint(_ path: String) throws {
        guard ReadOnlyFiles.journalMode(path) == "wal" || FileManager.default.fileExists(atPath: path + "-wal") else { return }
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try queue.close()
    }

    /// The file's bytes, or nil when there is no file.
    static func bytes(_ path: String) -> Data? {
        FileManager.default.contents(atPath: path)
    }

    /// Every path under `directory`, relative to it, directories ending in `/`.
    static func listing(_ directory: URL) -> Set<String> {
        guard let enumerator = FileManager.default.enumerator(atPath: directory.path) else { return [] }
        var names: Set<String> = []
        while let name = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path, isDirectory: &isDirectory)
            names.insert(isDirectory.boolValue ? name + "/" : name)
        }
        return names
    }

    /// `PRAGMA integrity_check`'s answer, or what went wrong asking it.
    static func integrity(_ path: String) -> String {
        do {
            var configuration = Configuration()
            configuration.readonly = true
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            return try queue.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ") }
        } catch {
            return "\(error)"
        }
    }
}
