import Rederive

/// How the SQLite store holds derived columns: the column type each `ColumnType` gets, and what
/// SQLite does to the values written to them.
public enum SQLiteStorage {
    /// The column type a derived column of `type` is declared with: `INTEGER`, `REAL`, `TEXT` or `BLOB`.
    public static func columnType(_ type: ColumnType) -> String {
        switch type {
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text: "TEXT"
        case .blob: "BLOB"
        }
    }

    /// SQLite's rules for the values that fit a column (`DerivedValue/fits(_:)`), the only ones
    /// rederive writes, as checked by storing and reading back each case with SQLite 3.40:
    /// - A NaN is stored as `NULL`, in a column of any type (SQLite binds a NaN as `NULL`).
    /// - In a `REAL` column an integer is stored as a real: `8` reads back as `8.0`, and an integer
    ///   beyond 2^53 as the nearest double, which is what `Double(value)` gives.
    /// - In a `REAL` column a real with an integral value stays a real: `8.0` reads back as `8.0`
    ///   (SQLite writes it to disk as an integer and converts it back when reading it).
    /// - In a `REAL` column `-0.0` reads back as `0.0`: written as the integer 0, it loses its sign.
    ///
    /// Every other value is held as it is: integers in `INTEGER` columns, text byte for byte, blobs.
    public static let rules = StorageRules(nanIsNull: true, realColumnsHoldIntegersAsReals: true, realZeroHasNoSign: true)
}
