import GRDB

/// Bookkeeping migration `rederive.v5`: the lease of the one process that derives this database.
///
/// `rederive_leases` holds at most one row per lease name (`runner`): the holder's description, host
/// and process id, its token, when it was taken and renewed, and when it expires (Unix seconds). A
/// SQLite database has one writer, so one process derives at a time; a second run waits until the
/// lease is released or has expired, then derives only what is still stale. A process killed while
/// holding it leaves a row that expires; a run on the same host sees at once that the holder is gone
/// and takes the lease over without waiting.
enum WorkerLeaseSchema {
    static let runnerLease = "runner"

    static func migrate(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE rederive_leases (
                name TEXT PRIMARY KEY,
                holder TEXT NOT NULL,
                host TEXT NOT NULL,
                process_id INTEGER NOT NULL,
                token TEXT NOT NULL,
                acquired_at REAL NOT NULL,
                renewed_at REAL NOT NULL,
                expires_at REAL NOT NULL
            )
            """)
    }
}
