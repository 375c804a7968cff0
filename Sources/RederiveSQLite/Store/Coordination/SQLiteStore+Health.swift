import GRDB
import Rederive

/// The signals of a SQLite database's health that throttles read: a query's boolean, and the part of
/// the write-ahead log not checkpointed yet.
extension SQLiteStore: HealthSignals {
    /// Runs `sql` on a read-only connection; it must return one row holding one boolean or integer.
    public func conditionHolds(_ sql: String) async throws -> Bool {
        let path = self.path
        return try await read { db in
            let rows = try Row.fetchAll(db, sql: sql)
            guard rows.count == 1, let row = rows.first, row.count == 1 else {
                throw RederiveError(.invalidArgument, "the query \(sql) must return one row of one boolean; on \(path) it returned \(rows.count) rows of \(rows.first?.count ?? 0) columns")
            }
            let value: DatabaseValue = row[0]
            guard case .int64(let flag) = value.storage else {
                throw RederiveError(.invalidArgument, "the query \(sql) must return a boolean (0 or 1) on \(path), not \(value)")
            }
            return flag != 0
        }
    }

    /// Bytes of the WAL left after a passive checkpoint, which copies what no reader still needs;
    /// nil when the database is not in WAL mode.
    public func uncheckpointedLogSize() async throws -> Int? {
        try await access("checkpoint") { database in
            try database.writeWithoutTransaction { db in
                guard let row = try Row.fetchOne(db, sql: "PRAGMA main.wal_checkpoint(PASSIVE)") else { return nil }
                let (frames, copied): (Int, Int) = (row[1], row[2])
                guard frames >= 0 else { return nil }
                let pageSize = try Int.fetchOne(db, sql: "PRAGMA main.page_size") ?? 4096
                return max(0, frames - copied) * pageSize
            }
        }
    }

    /// None: a SQLite database has no standbys.
    public func replicaLag() async throws -> Duration? { nil }
}
