import Foundation
import GRDB
import Rederive

/// Replacing a database with a verified backup, only while no other connection has it open.
///
/// ```swift
/// let report = try await DatabaseRestore.restore("backups/rooms-1.sqlite", over: "rooms.sqlite")
/// ```
///
/// The backup is copied next to the database and the copy verified (integrity check) before the
/// database is touched, so a corrupt backup leaves the database exactly as it was. rederive and GRDB
/// apps keep databases in WAL mode, where every open connection holds a shared lock on the file: the
/// restore takes the database out of WAL mode, which SQLite allows only to the sole connection, and
/// holds an exclusive lock while it renames the copy into place. Another connection, in this process
/// or another, makes the restore fail instead. A connection in rollback-journal mode that is idle holds
/// no lock and cannot be seen; nor can a process that opens the database in the instant between the
/// check and the rename.
public enum DatabaseRestore {
    /// How long the restore waits for another connection's lock before giving up.
    public static let defaultLockTimeout: TimeInterval = 1

    /// Replaces the database at `database` with the backup at `backup` and returns the backup's rows per table.
    public static func restore(_ backup: String, over database: String, lockTimeout: TimeInterval = defaultLockTimeout) async throws -> [String: Int] {
        try await offload { try restoreSynchronously(backup, over: database, lockTimeout: lockTimeout) }
    }

    static func restoreSynchronously(_ backup: String, over database: String, lockTimeout: TimeInterval) throws -> [String: Int] {
        guard FileManager.default.fileExists(atPath: backup) else {
            throw RederiveError(.file, "no backup at \(backup)")
        }
        let staged = PartialFiles.track(beside: database)
        defer { PartialFiles.remove(staged) }
        do {
            try FileManager.default.copyItem(atPath: backup, toPath: staged)
        } catch {
            throw RederiveError(.file, "cannot copy \(backup) next to \(database)", underlying: error)
        }
        let counts = try DatabaseBackup.verify(staged, naming: backup)
        guard FileManager.default.fileExists(atPath: database) else {
            try FinishingStep.run { try AtomicFile.install(staged, at: database) }
            return counts
        }
        let install = {
            // A WAL left beside the old file would be replayed into the restored one: it must not survive.
            unlink(database + "-wal")
            unlink(database + "-shm")
            try AtomicFile.install(staged, at: database)
        }
        // One step from leaving WAL mode to the rename: a signal ends the restore before it or after it.
        try FinishingStep.run {
            do {
                try withSoleAccess(to: database, lockTimeout: lockTimeout, install)
            } catch let error as RederiveError where error.code == .database && isDamagedDatabase(database) {
                // A database too damaged for SQLite to lock is what a restore is for; no connection can use it.
                try install()
            }
        }
        return counts
    }

    /// Whether `path` starts as a SQLite database does but SQLite finds it damaged (truncated, or
    /// with corrupt pages): a file that is not a database at all is not replaced.
    private static func isDamagedDatabase(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        guard header == Data("SQLite format 3\u{0}".utf8) else { return false }
        do {
            let queue = try DatabaseQueue(path: path, configuration: readOnlyConfiguration)
            defer { try? queue.close() }
            _ = try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
            return false
        } catch {
            let code = SQLiteProblem(error)?.resultCode
            return code == ResultCode.SQLITE_CORRUPT.rawValue || code == ResultCode.SQLITE_IOERR.rawValue
                || code == ResultCode.SQLITE_NOTADB.rawValue
        }
    }

    private static var readOnlyConfiguration: Configuration {
        var configuration = Configuration()
        configuration.readonly = true
        return configuration
    }

    /// Refuses to replace a database that holds tables but none of rederive's: another program's.
    private static func requireRederiveDatabase(_ database: String, _ db: Database) throws {
        let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        guard !tables.isEmpty, !tables.contains("rederive_runs") else { return }
        throw RederiveError(
            .schemaMismatch,
            "\(database) is not a rederive database: it holds another program's tables (\(tables.prefix(3).joined(separator: ", "))\(tables.count > 3 ? ", …" : "")) and none of rederive's; nothing was replaced (restore into a new path, or move that file away first)"
        )
    }

    /// Runs `body` holding an exclusive lock on the database, out of WAL mode, or throws when another
    /// connection has the database open.
    private static func withSoleAccess(to database: String, lockTimeout: TimeInterval, _ body: () throws -> Void) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(lockTimeout)
        let busy = RederiveError(.database, "\(database) is in use by another connection; close the app or process that has it open, then restore again")
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: database, configuration: configuration)
        } catch {
            throw SQLiteProblem.error("open", database, error)
        }
        defer { try? queue.close() }
        try queue.inDatabase { db in
            let mode: String?
            do {
                // Leaving WAL mode checkpoints the WAL and needs every other connection gone.
                mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")
                try db.execute(sql: "BEGIN EXCLUSIVE")
            } catch {
                throw busy
            }
            guard mode?.lowercased() == "delete" else {
                try? db.execute(sql: "ROLLBACK")
                throw busy
            }
            defer { try? db.execute(sql: "ROLLBACK") }
            try requireRederiveDatabase(database, db)
            try body()
        }
    }
}
