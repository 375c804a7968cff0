import Foundation
import GRDB
import Rederive

/// Online backups of a rederive database, verified before they count as backups.
///
/// The copy is made with SQLite's backup API inside one read transaction of the live database, so it
/// is a consistent snapshot even while the app writes. It is written to a temporary file next to the
/// destination, checked (`PRAGMA integrity_check`, and every table's row count against the same
/// snapshot), synced, and only then renamed into place: a failed or interrupted backup leaves no file
/// that looks like a backup.
///
/// ```swift
/// let report = try await DatabaseBackup.create(of: "rooms.sqlite", to: "rooms-before-v2.sqlite")
/// print(report.tables["room_scans"] ?? 0, "scans backed up")
/// ```
public enum DatabaseBackup {
    /// What a verified backup holds.
    public struct Report: Sendable, Hashable {
        /// The backup file.
        public let path: String
        /// Rows per table, as in the live database at the moment of the snapshot.
        public let tables: [String: Int]
    }

    /// Copies the database at `source` to `destination` and verifies the copy.
    ///
    /// - Parameters:
    ///   - source: The database file to copy, read through SQLite's online backup.
    ///   - destination: Where the copy goes.
    ///   - replacing: Whether an existing file at `destination` may be replaced. Without it an
    ///     existing file is an error and stays as it was.
    public static func create(of source: String, to destination: String, replacing: Bool = false) async throws -> Report {
        try await offload { try createSynchronously(of: source, to: destination, replacing: replacing) }
    }

    static func createSynchronously(of source: String, to destination: String, replacing: Bool) throws -> Report {
        let files = FileManager.default
        guard files.fileExists(atPath: source) else {
            throw RederiveError(.file, "no database at \(source)")
        }
        if files.fileExists(atPath: destination), !replacing {
            throw RederiveError(.file, "\(destination) exists; pass --force to replace it")
        }
        let temporary = PartialFiles.track(beside: destination)
        defer { PartialFiles.remove(temporary) }

        let expected: [String: Int]
        do {
            // Read-only: backing up changes nothing in the live database, and works on one the user may not write.
            let (live, snapshot) = try ReadOnlyDatabase.open(source, busyTimeout: SQLiteStore.defaultBusyTimeout)
            let copy = try DatabaseQueue(path: temporary)
            expected = try copy.writeWithoutTransaction { copyDB in
                try live.read { liveDB in
                    // Counted in the same read transaction the backup copies from.
                    let counts = try tableCounts(liveDB)
                    try liveDB.backup(to: copyDB)
                    return counts
                }
            }
            // A backup is one self-contained file, whatever the live database's journal mode.
            try copy.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = DELETE") }
            try copy.close()
            try live.close()
            try snapshot?.requireUnchanged(source)
        } catch let error as RederiveError {
            throw error
        } catch {
            throw SQLiteProblem.error("back up \(source) to", destination, error)
        }
        let found = try verify(temporary, naming: destination)
        guard found == expected else {
            throw RederiveError(.database, "backup \(destination) does not hold the rows of \(source) (\(difference(expected, found)))")
        }
        try FinishingStep.run { try AtomicFile.install(temporary, at: destination) }
        return Report(path: destination, tables: found)
    }

    /// Checks that the file at `path`, a copy rederive owns, is an intact SQLite database and returns
    /// its rows per table. Errors name `naming` (the file the person asked for), which defaults to `path`.
    static func verify(_ path: String, naming: String? = nil) throws -> [String: Int] {
        let name = naming ?? path
        guard FileManager.default.fileExists(atPath: path) else {
            throw RederiveError(.file, "no backup at \(name)")
        }
        do {
            let queue = try DatabaseQueue(path: path)
            defer { try? queue.close() }
            return try queue.read { db in
                let problems = try String.fetchAll(db, sql: "PRAGMA integrity_check")
                guard problems == ["ok"] else {
                    // A row can hold several problems, a line each, under a "*** in database main ***" heading.
                    let lines = problems.flatMap { $0.split(whereSeparator: \.isNewline) }.map(String.init).filter { !$0.hasPrefix("***") }
                    throw RederiveError(.database, "\(name) fails its integrity check: \(lines.prefix(3).joined(separator: "; "))")
                }
                return try tableCounts(db)
            }
        } catch let error as RederiveError {
            throw error
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw RederiveError(.database, "\(name) is not a SQLite database")
        } catch {
            throw SQLiteProblem.error("read", name, error)
        }
    }

    /// Rows of every ordinary table, SQLite's own excepted.
    static func tableCounts(_ db: Database) throws -> [String: Int] {
        let names = try String.fetchAll(
            db,
            sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
        )
        var counts: [String: Int] = [:]
        for name in names {
            counts[name] = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(SQL.identifier(name))") ?? 0
        }
        return counts
    }

    private static func difference(_ expected: [String: Int], _ found: [String: Int]) -> String {
        Set(expected.keys).union(found.keys).sorted()
            .filter { expected[$0] != found[$0] }
            .map { "\($0): \(expected[$0].map(String.init) ?? "none") expected, \(found[$0].map(String.init) ?? "none") found" }
            .joined(separator: "; ")
    }
}
