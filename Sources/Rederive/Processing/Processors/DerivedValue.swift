/// A value a processor writes into one of its output columns.
///
/// Five kinds of value, which every store holds without loss, apart from the few its
/// ``StorageRules`` name.
public enum DerivedValue: Sendable, Hashable {
    /// No value. It fits a column of any type.
    case null
    /// A 64-bit signed integer, for ``ColumnType/integer`` columns (and ``ColumnType/real`` ones, which hold it as a number).
    case integer(Int64)
    /// A floating-point number, for ``ColumnType/real`` columns.
    case real(Double)
    /// UTF-8 text, for ``ColumnType/text`` columns.
    case text(String)
    /// Bytes, for ``ColumnType/blob`` columns.
    case blob([UInt8])

    /// An integer value from an `Int`, the type counts usually have.
    public static func integer(_ value: Int) -> DerivedValue {
        .integer(Int64(value))
    }
}

extension DerivedValue: CustomStringConvertible {
    /// The value as reports show it: `NULL`, the number, the text itself, or `<N bytes>` for a blob.
    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): value
        case .blob(let value): "<\(value.count) bytes>"
        }
    }
}

extension DerivedValue {
    /// Whether the value may be stored in a column of the given type: `NULL` fits every column.
    public func fits(_ type: ColumnType) -> Bool {
        switch (self, type) {
        case (.null, _), (.integer, .integer), (.real, .real), (.integer, .real), (.text, .text), (.blob, .blob):
            true
        default:
            false
        }
    }
}
