import Foundation
import Rederive

/// Putting a finished file in place so that readers see either the old file or the whole new one.
package enum AtomicFile {
    /// A fresh path in the same directory as `path`, so that a rename onto `path` stays on one file system.
    /// Its name starts with as much of `path`'s name as fits the file system's 255 bytes beside the
    /// random part, so that any name that fits has a temporary name that fits too.
    package static func temporaryPath(beside path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let suffix = ".\(UUID().uuidString).partial"
        var name = url.lastPathComponent
        while name.utf8.count > nameLimit - 1 - suffix.utf8.count {
            name.removeLast()
        }
        return url.deletingLastPathComponent().appendingPathComponent("." + name + suffix).path
    }

    /// The most bytes a file name may have on Linux and macOS file systems.
    static let nameLimit = 255

    /// Syncs `temporary`, renames it onto `destination` and syncs the directory, so that after a crash
    /// `destination` is either what it was or the complete new file. Callers that put many files into
    /// one directory leave `syncingDirectory` false and sync the directory once when done.
    package static func install(_ temporary: String, at destination: String, syncingDirectory: Bool = true) throws(RederiveError) {
        try sync(temporary)
        guard rename(temporary, destination) == 0 else {
            throw RederiveError(.file, "cannot move \(temporary) to \(destination): \(String(cString: strerror(errno)))")
        }
        if syncingDirectory {
            try sync(URL(fileURLWithPath: destination).deletingLastPathComponent().path)
        }
    }

    /// ``install(_:at:syncingDirectory:)`` unless something is at `destination` already: returns false
    /// then, and leaves both files as they were. The check and the move are one step (a hard link)
    /// where the file system has hard links, so a file another program wrote meanwhile is not replaced.
    package static func installNew(_ temporary: String, at destination: String, syncingDirectory: Bool = true) throws(RederiveError) -> Bool {
        try sync(temporary)
        if link(temporary, destination) == 0 {
            unlink(temporary)
        } else if errno == EEXIST {
            return false
        } else if access(destination, F_OK) == 0 {
            return false
        } else {
            // No hard links here (FAT, some network file systems): look, then rename.
            guard rename(temporary, destination) == 0 else {
                throw RederiveError(.file, "cannot move \(temporary) to \(destination): \(String(cString: strerror(errno)))")
            }
        }
        if syncingDirectory {
            try sync(URL(fileURLWithPath: destination).deletingLastPathComponent().path)
        }
        return true
    }

    /// Flushes a file or directory to stable storage.
    package static func sync(_ path: String) throws(RederiveError) {
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
