import Foundation
import Rederive

/// Putting a finished file in place so that readers see either the old file or the whole new one.
enum AtomicFile {
    /// A fresh path in the same directory as `path`, so that a rename onto `path` stays on one file system.
    static func temporaryPath(beside path: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).partial").path
    }

    /// Syncs `temporary`, renames it onto `destination` and syncs the directory, so that after a crash
    /// `destination` is either what it was or the complete new file.
    static func install(_ temporary: String, at destination: String) throws(RederiveError) {
        try sync(temporary)
        guard rename(temporary, destination) == 0 else {
            throw RederiveError(.file, "cannot move \(temporary) to \(destination): \(String(cString: strerror(errno)))")
        }
        try sync(URL(fileURLWithPath: destination).deletingLastPathComponent().path)
    }

    /// Flushes a file or directory to stable storage.
    static func sync(_ path: String) throws(RederiveError) {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw RederiveError(.file, "cannot open \(path) to sync it: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw RederiveError(.file, "cannot sync \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Removes a database file and its journal, WAL and shared-memory companions, where present.
    static func removeDatabaseFiles(at path: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] {
            unlink(path + suffix)
        }
    }
}
