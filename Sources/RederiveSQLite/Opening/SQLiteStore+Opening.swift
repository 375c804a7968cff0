import Foundation
import GRDB
import Rederive
import RederiveSQL

/// Opening a database the way a command needs it: to read what rederive keeps there, changing nothing,
/// or to write, after preparing it all at once.
extension SQLiteStore {
    /// Opens an existing database that rederive prepared, for reading only: nothing is migrated or
    /// created, the journal mode stays, and no file is left beside it (the file is opened read-only, or `immutable` when it has no `-wal` beside it). The
    /// store's writes fail.
    ///
    /// Throws, in one line, when nothing is at `path`, when it is not a SQLite database, when rederive
    /// never prepared it (unless `allowingUnprepared`, for listing an app's schema migrations, all
    /// pending then), and when an older rederive did (a command that writes upgrades it).
    public static func openForReading(
        path: String, busyTimeout: TimeInterval = defaultBusyTimeout, allowingUnprepared: Bool = false
    ) throws -> SQLiteStore {
        try requireFile(at: path)
        let (pool, snapshot) = try ReadOnlyDatabase.open(path, busyTimeout: busyTimeout)
        let state: BookkeepingSchema.State
        do {
            state = try pool.read { db in try BookkeepingSchema.state(db) }
            try snapshot?.requireUnchanged(path)
        } catch let error as RederiveError {
            throw error
        } catch {
            throw ReadOnlyDatabase.openingError(path, error)
        }
        switch state {
        case .absent where allowingUnprepared:
            return SQLiteStore(unmigrated: pool, path: path, snapshot: snapshot)
        case .absent: throw notPrepared(path)
        case .outdated:
            throw RederiveError(
                .schemaMismatch,
                "\(path) was prepared by an older rederive; reading changes nothing, so upgrade it first with rederive run or rederive migrate"
            )
        case .current:
            return SQLiteStore(unmigrated: pool, path: path, snapshot: snapshot)
        }
    }

    /// Opens the database at `path` for writing, and first brings rederive's bookkeeping and the tables,
    /// columns and triggers of `pipelines` up to date, all in one transaction: a preparation that fails
    /// (a table that lacks a column a pipeline reads, a full disk) leaves the file as it was, journal
    /// mode included. The database is switched to WAL mode only once it is prepared.
    ///
    /// - Parameters:
    ///   - path: The database file.
    ///   - pipelines: The pipelines whose tables, columns and triggers are prepared.
    ///   - creating: Whether a missing file is created; without it, a missing file is an error.
    ///   - requiringPrepared: Whether a database rederive never prepared is refused rather than prepared,
    ///     for commands that change what rederive keeps there.
    ///   - preparingForeign: Whether a database with neither rederive's tables nor the table of any of
    ///     `pipelines` (an app's own database, given by mistake) is prepared; without it, it is refused
    ///     and left as it was, byte for byte.
    ///   - busyTimeout: How long a statement waits for another connection's write lock.
    ///   - replacedValuesRunLimit: How many recent runs keep the values they replaced, for rollback.
    public static func openForWriting(
        path: String,
        pipelines: [Pipeline],
        creating: Bool = false,
        requiringPrepared: Bool = false,
        preparingForeign: Bool = true,
        busyTimeout: TimeInterval = defaultBusyTimeout,
        replacedValuesRunLimit: Int = 20
    ) throws -> SQLiteStore {
        if creating {
            try requireNoDirectory(at: path)
        } else {
            try requireFile(at: path)
        }
        try requireWritable(path)
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.label = "rederive"
        do {
            // A queue in the file's own journal mode: nothing is written before the transaction below.
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            try queue.inDatabase { db in
                let state = try BookkeepingSchema.state(db)
                if requiringPrepared, state == .absent {
                    throw notPrepared(path)
                }
                if !preparingForeign, state == .absent, let first = pipelines.first,
                   try !pipelines.contains(where: { try hasTableOrView($0.table, db) }) {
                    throw foreign(path, table: first.table)
                }
                // Looked at first, writing nothing: a table that lacks a column a pipeline reads is
                // reported here, and a prepared database takes no write lock from a run waiting its turn.
                let schemas = pipelines.map { PipelineSchema(tables: PipelineTables($0)) }
                let unprepared = try schemas.contains { try !$0.changes(db).isEmpty }
                let unadopted = try state == .current && PipelineKeySchema.hasUnadopted(db)
                guard state != .current || unprepared || unadopted else { return }
                try db.inTransaction(.immediate) {
                    // Another process may have prepared the database meanwhile: look again inside the transaction.
                    if try BookkeepingSchema.state(db) != .current {
                        try BookkeepingSchema.apply(db)
                    }
                    for schema in schemas {
                        try schema.apply(try schema.changes(db), db)
                        try PipelineKeySchema.adopt(schema.pipeline.name, table: schema.pipeline.table, db)
                    }
                    return .commit
                }
                if try String.fetchOne(db, sql: "PRAGMA journal_mode")?.lowercased() != "wal" {
                    try db.execute(sql: "PRAGMA journal_mode = WAL")
                }
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw RederiveError(.database, "\(path) is not a SQLite database")
        } catch {
            throw SQLiteProblem.error("prepare database", path, error)
        }
        return try SQLiteStore(path: path, busyTimeout: busyTimeout, replacedValuesRunLimit: replacedValuesRunLimit)
    }

    /// Opens an existing database as it is, migrating and preparing nothing, on one connection in the
    /// file's own journal mode: for a preview that writes only inside a transaction it rolls back, such
    /// as ``migrate(_:to:dryRun:)`` with `dryRun`.
    public static func openForPreview(path: String, busyTimeout: TimeInterval = defaultBusyTimeout) throws -> SQLiteStore {
        try requireFile(at: path)
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.label = "rederive"
        do {
            return SQLiteStore(unmigrated: try DatabaseQueue(path: path, configuration: configuration), path: path, snapshot: nil)
        } catch {
            throw ReadOnlyDatabase.openingError(path, error)
        }
    }

    /// Throws, in one line, unless a file, not a directory, is at `path`.
    static func requireFile(at path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw RederiveError(.file, "no database at \(path) (create one with rederive import or rederive generate)")
        }
        try requireNoDirectory(at: path)
    }

    /// Throws, in one line, when this user may not write the file at `path` (when there is one) or its
    /// directory, where SQLite keeps the `-wal` and `-shm` beside it.
    static func requireWritable(_ path: String) throws {
        let files = FileManager.default
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let unwritable = files.fileExists(atPath: path) && !files.isWritableFile(atPath: path) ? path
            : !files.isWritableFile(atPath: directory) ? "its directory \(directory)" : nil
        if let unwritable {
            throw RederiveError(
                .file,
                "cannot write \(path): \(unwritable == path ? "the file" : unwritable) is read-only for this user; commands that only read it (status, failures, history, verify, report, run --dry-run, backup) still work"
            )
        }
    }

    /// Throws, in one line, when `path` names a directory, or anything else that is not a regular
    /// file (a device such as `/dev/null`, a FIFO, a socket), which SQLite cannot keep a database in.
    static func requireNoDirectory(at path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw RederiveError(.file, "\(path) is a directory, not a database file; name the database file inside it")
        }
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT != S_IFREG {
            let kind = switch status.st_mode & S_IFMT {
            case S_IFCHR, S_IFBLK: "a device"
            case S_IFIFO: "a named pipe (FIFO)"
            case S_IFSOCK: "a socket"
            default: "not a regular file"
            }
            throw RederiveError(.file, "\(path) is \(kind), not a database file; name a SQLite database file")
        }
    }

    /// Whether `name` is a table or a view of the main schema.
    private static func hasTableOrView(_ name: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = ? COLLATE NOCASE)",
            arguments: [name]
        ) ?? false
    }

    /// What a command that needs rederive's tables says of a database without them.
    static func notPrepared(_ path: String) -> RederiveError {
        RederiveError(
            .schemaMismatch,
            "\(path) is not a rederive database: it has no rederive tables (prepare it with rederive import, or rederive run --create)"
        )
    }

    /// What a command that would prepare a database says of one with none of rederive's tables and
    /// none of its pipelines' tables: most likely another program's database, given by mistake.
    static func foreign(_ path: String, table: String) -> RederiveError {
        RederiveError(
            .schemaMismatch,
            "\(path) is not a rederive database: it has neither rederive's tables nor a table \"\(table)\"; nothing was changed (to prepare it for rederive, use rederive import or rederive generate, or run with --create)"
        )
    }
}
