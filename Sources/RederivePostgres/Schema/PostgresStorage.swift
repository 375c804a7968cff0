#if PostgreSQL
import Rederive

/// How the PostgreSQL store holds derived columns: the column type each `ColumnType` gets, and
/// what it does to the values written to them.
public enum PostgresStorage {
    /// The column type a derived column of `type` is declared with: `bigint`, `double precision`,
    /// `text` or `bytea`.
    public static func columnType(_ type: ColumnType) -> String {
        switch type {
        case .integer: "bigint"
        case .real: "double precision"
        case .text: "text"
        case .blob: "bytea"
        }
    }

    /// The store binds every value as its column is to hold it, by the rules the SQLite store
    /// declares, so that both stores hold the same values and a database moved from one to the other
    /// derives nothing again. `double precision` could keep a NaN and the sign of a zero; they are
    /// bound as `NULL` and `0.0`:
    /// - A NaN is stored as `NULL`, in a column of any type.
    /// - In a `double precision` column an integer is stored as the nearest double, `Double(value)`.
    /// - In a `double precision` column `-0.0` is stored as `0.0`.
    ///
    /// Every other value is held as it is: integers in `bigint` columns, text byte for byte, blobs.
    public static let rules = StorageRules(nanIsNull: true, realColumnsHoldIntegersAsReals: true, realZeroHasNoSign: true)
}
#endif
