import Synchronization

/// The temporary files this process is writing beside a destination (`.NAME.UUID.partial`), so that a
/// signal handler can remove them before the process ends: an interrupted backup or restore leaves
/// nothing behind.
package enum PartialFiles {
    private static let paths = Mutex<Set<String>>([])

    /// A fresh temporary path beside `destination` (``AtomicFile/temporaryPath(beside:)``), tracked
    /// until ``forget(_:)``.
    package static func track(beside destination: String) -> String {
        let path = AtomicFile.temporaryPath(beside: destination)
        paths.withLock { _ = $0.insert(path) }
        return path
    }

    /// Removes the file at `path` and its companions, where present, and stops tracking it.
    package static func remove(_ path: String) {
        AtomicFile.removeDatabaseFiles(at: path)
        paths.withLock { _ = $0.remove(path) }
    }

    /// Removes every tracked file and its companions: for a signal handler, just before the process ends.
    package static func removeAll() {
        let all = paths.withLock { paths in
            defer { paths = [] }
            return paths
        }
        for path in all {
            AtomicFile.removeDatabaseFiles(at: path)
        }
    }
}
