import GRDB
import GRDBSQLite

/// Reads payloads with SQLite's incremental BLOB I/O, straight from the table's pages into the array
/// a `PendingRecord` keeps: one copy, where a statement's column first gathers a payload that spans
/// overflow pages into a buffer of SQLite's own, which is then copied again.
///
/// One handle moves from record to record. It reads only what such a handle opens, a BLOB or TEXT
/// value, on an intact page; for anything else (NULL, a number, a damaged page, an error) it reads
/// nothing, and the caller reads the column with a statement, which keeps the behaviour it always had.
/// ``close()`` must be called before the read transaction ends.
final class PayloadBlobReader {
    private let connection: SQLiteConnection?
    private let table: String
    private let column: String
    private var blob: OpaquePointer?

    /// A reader of `column` of `table`, in the main database of `db`; names unquoted.
    init(_ db: Database, table: String, column: String) {
        connection = db.sqliteConnection
        self.table = table
        self.column = column
    }

    /// The payload of the row whose rowid is `rowID`, or nil when the handle cannot read it.
    func read(_ rowID: Int64) -> [UInt8]? {
        var status: Int32
        if let blob {
            status = sqlite3_blob_reopen(blob, rowID)
        } else {
            status = sqlite3_blob_open(connection, "main", table, column, rowID, 0, &blob)
        }
        guard status == SQLITE_OK, let blob else {
            // A failed reopen leaves the handle unusable, and a failed open leaves none.
            close()
            return nil
        }
        let count = Int(sqlite3_blob_bytes(blob))
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            status = count == 0 ? SQLITE_OK : sqlite3_blob_read(blob, buffer.baseAddress, Int32(count), 0)
            initialized = status == SQLITE_OK ? count : 0
        }
        guard status == SQLITE_OK else {
            close()
            return nil
        }
        return bytes
    }

    /// Closes the handle, if open.
    func close() {
        if let blob {
            sqlite3_blob_close(blob)
            self.blob = nil
        }
    }

    deinit {
        close()
    }
}
