import GRDB
import Synchronization

/// Closing the store before the process exits, so that the file alone holds every commit.
extension SQLiteStore {
    /// Copies the write-ahead log back into the database file and empties it (a `TRUNCATE` checkpoint),
    /// then closes the store's connections: a file copied, attached or shipped afterwards, without its
    /// `-wal`, holds everything this process committed. The last connection to close also removes the
    /// `-wal`; one another program still holds keeps it, empty.
    ///
    /// An app's own pool (``init(_:replacedValuesRunLimit:)``) is left open: the app closes it. A
    /// checkpoint that another connection keeps from finishing leaves the log as it is, which SQLite
    /// reads as before; closing is never an error.
    public func close() async {
        guard ownsConnections, closed.withLock({ closed in
            defer { closed = true }
            return !closed
        }) else { return }
        let database = self.database
        let checkpoints = checkpointsOnClose
        _ = try? await offload {
            if checkpoints {
                _ = try? database.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
            }
            // GRDB closes a pool's writer before its readers (its issue 739), and a read-only
            // connection closing last may not remove the `-wal`: close the readers first.
            (database as? DatabasePool)?.releaseMemory()
            try? database.close()
        }
    }
}
