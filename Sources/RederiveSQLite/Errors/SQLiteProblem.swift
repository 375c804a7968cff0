import GRDB
import Rederive

/// A SQLite error told in a few words for a person, by its result code: never GRDB's description,
/// which shows the statement that failed and its arguments.
///
/// Every place the SQLite store turns a database error into a `RederiveError` goes through
/// ``SQLiteProblem/error(_:_:_:)``, so a locked, damaged, truncated or full database reads the same
/// in every command.
public struct SQLiteProblem: Error, Sendable, CustomStringConvertible {
    /// Why the operation failed, in a few words that follow "cannot read PATH: ".
    public let description: String
    /// The SQLite result code (primary), such as 5 for SQLITE_BUSY.
    public let resultCode: Int32

    /// The problem `error` reports; nil when it is not a SQLite error.
    public init?(_ error: any Error) {
        guard let database = error as? DatabaseError else { return nil }
        self.init(database)
    }

    init(_ error: DatabaseError) {
        resultCode = error.resultCode.primaryResultCode.rawValue
        description = Self.reason(error)
    }

    /// Whether another connection or program held the database's lock past the busy timeout: the
    /// operation may succeed later.
    public var isLocked: Bool {
        resultCode == ResultCode.SQLITE_BUSY.rawValue || resultCode == ResultCode.SQLITE_LOCKED.rawValue
    }

    private static func reason(_ error: DatabaseError) -> String {
        switch error.resultCode.primaryResultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            "another program holds its lock, longer than the busy timeout; try again once it is done"
        case .SQLITE_CORRUPT:
            "it is damaged (SQLite finds it corrupt); restore it from a backup"
        case .SQLITE_NOTADB:
            "it is not a SQLite database"
        case .SQLITE_FULL:
            "the disk is full"
        case .SQLITE_CANTOPEN:
            "SQLite cannot open it, or the -wal and -shm files beside it (it must be a regular file, in a directory this user may write)"
        case .SQLITE_READONLY:
            "it is read-only here"
        case .SQLITE_PERM, .SQLITE_AUTH:
            "permission denied"
        case .SQLITE_IOERR:
            switch error.extendedResultCode {
            case .SQLITE_IOERR_READ, .SQLITE_IOERR_SHORT_READ:
                "reading the file failed (a truncated file, or a failing disk)"
            case .SQLITE_IOERR_WRITE, .SQLITE_IOERR_FSYNC, .SQLITE_IOERR_TRUNCATE, .SQLITE_IOERR_DIR_FSYNC:
                "writing the file failed (a full disk, a file size limit, or a failing disk)"
            default:
                "the file could not be read or written (a full or failing disk)"
            }
        case .SQLITE_NOMEM:
            "out of memory"
        case .SQLITE_INTERRUPT, .SQLITE_ABORT:
            "the operation was interrupted"
        default:
            // SQLite's own message names what is wrong ("no such column: x") and never holds the statement.
            error.message.map { $0.isEmpty || $0 == "not an error" ? "SQLite error \(error.resultCode.rawValue)" : $0 }
                ?? "SQLite error \(error.resultCode.rawValue)"
        }
    }

    /// `error` as a person should read it: a SQLite error as its ``SQLiteProblem``, any other as it is.
    public static func told(_ error: any Error) -> any Error & Sendable {
        SQLiteProblem(error) ?? error
    }

    /// `cannot VERB PATH: REASON` for `error`, or `PATH is locked: …`, transient, when another program
    /// held the database's lock past the busy timeout. A
    /// `RederiveError` passes through unchanged; an error that is not SQLite's is told by
    /// `RederiveError`'s own description of its underlying error.
    public static func error(_ verb: String, _ path: String, _ error: any Error) -> RederiveError {
        if let error = error as? RederiveError { return error }
        guard let problem = SQLiteProblem(error) else {
            return RederiveError(.database, "cannot \(verb) \(path)", underlying: error)
        }
        if problem.isLocked {
            // The database opened; the lock is another program's, and may be let go of soon.
            return RederiveError(
                .database, "\(path) is locked: another program holds its lock, longer than the busy timeout; try again once it is done",
                transient: true
            )
        }
        switch problem.resultCode {
        case ResultCode.SQLITE_CORRUPT.rawValue:
            // Its own reason would say the same again after a colon.
            return RederiveError(.database, "\(path) is damaged (SQLite finds it corrupt); restore it from a backup")
        case ResultCode.SQLITE_NOTADB.rawValue:
            return RederiveError(.database, "\(path) is not a SQLite database")
        default:
            return RederiveError(.database, "cannot \(verb) \(path)", underlying: problem)
        }
    }
}
