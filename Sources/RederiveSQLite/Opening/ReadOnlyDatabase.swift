import Foundation
import GRDB
import Rederive

/// How rederive opens a database it only reads, so that reading writes nothing: no schema, no journal
/// mode, no `-wal` or `-shm` left beside the file. A file the user may not write, or one in a directory
/// the user may not write (read-only media, a mounted snapshot, another team's directory), reads as
/// well as any other.
///
/// SQLite opens a WAL database read-only only when its `-wal` and `-shm` exist or can be created
/// (<https://www.sqlite.org/wal.html>, "Read-Only Databases"), and a read-only connection that creates
/// them cannot remove them: they stay behind, owned by the reader, where they can keep the database's
/// owner from writing. So:
/// - a database in rollback-journal mode, or a WAL database whose `-wal` exists (some connection has
///   it open, or left it), is opened read-only as usual, under SQLite's locks: safe beside a writer;
/// - a WAL database without a `-wal` has every committed transaction in the file itself, and no
///   connection has it open. It is opened `immutable`: no locks and no side files. A writer that starts
///   meanwhile writes into a new `-wal` and leaves the file alone until it checkpoints, so every read
///   checks that the file is still as it was opened (``FileSnapshot``) and fails, asking to run the
///   command again, rather than return what a checkpoint may have torn.
enum ReadOnlyDatabase {
    /// What identifies a file's content without reading it: a checkpoint or a replacement changes it.
    struct FileSnapshot: Sendable, Equatable {
        let device: Int
        let inode: Int
        let size: Int
        let modified: Date?

        init?(path: String) {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
            device = (attributes[.systemNumber] as? NSNumber)?.intValue ?? 0
            inode = (attributes[.systemFileNumber] as? NSNumber)?.intValue ?? 0
            size = (attributes[.size] as? NSNumber)?.intValue ?? 0
            modified = attributes[.modificationDate] as? Date
        }

        /// Throws when the file at `path` is no longer the one this snapshot describes.
        func requireUnchanged(_ path: String) throws {
            guard FileSnapshot(path: path) == self else {
                throw RederiveError(.database, "\(path) changed while it was being read; run the command again")
            }
        }
    }

    /// Opens the existing database at `path` read-only; the snapshot is non-nil when it is read without locks.
    static func open(_ path: String, busyTimeout: TimeInterval) throws -> (pool: DatabasePool, snapshot: FileSnapshot?) {
        let unlocked = isWAL(path) && !FileManager.default.fileExists(atPath: path + "-wal")
        let snapshot = unlocked ? FileSnapshot(path: path) : nil
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(busyTimeout)
        configuration.label = "rederive"
        configuration.maximumReaderCount = 16
        do {
            let pool = try DatabasePool(path: uri(path, immutable: unlocked), configuration: configuration)
            try snapshot?.requireUnchanged(path)
            return (pool, snapshot)
        } catch let error as RederiveError {
            throw error
        } catch {
            throw openingError(path, error)
        }
    }

    /// Whether the file's header says WAL mode (bytes 18 and 19, the read and write versions, are 2).
    static func isWAL(_ path: String) -> Bool {
        guard let file = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? file.close() }
        guard let header = try? file.read(upToCount: 20), header.count == 20 else { return false }
        return header[header.startIndex + 18] == 2 && header[header.startIndex + 19] == 2
    }

    /// A URI filename, which SQLite reads with its query parameters: `mode=ro`, and `immutable=1` when asked.
    static func uri(_ path: String, immutable: Bool) -> String {
        var absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        while absolute.hasPrefix("//") { absolute.removeFirst() }
        var escaped = ""
        for character in absolute {
            switch character {
            case "%": escaped += "%25"
            case "?": escaped += "%3f"
            case "#": escaped += "%23"
            default: escaped.append(character)
            }
        }
        return "file:\(escaped)?mode=ro" + (immutable ? "&immutable=1" : "")
    }

    /// One line for a person about a database that cannot be opened or read, without SQLite's internals.
    static func openingError(_ path: String, _ error: any Error) -> RederiveError {
        guard let database = error as? DatabaseError else {
            return SQLiteProblem.error("read database", path, error)
        }
        switch database.resultCode {
        case .SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_AUTH:
            return RederiveError(
                .database,
                "cannot read database \(path): its -wal or -shm file cannot be read or created here; open it where they can be, or ask its owner to checkpoint it"
            )
        default:
            return SQLiteProblem.error("read database", path, database)
        }
    }
}
