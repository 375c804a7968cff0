/// A value a processor writes into one of its output columns.
///
/// The cases mirror SQLite's storage classes, so that any store can hold them without loss.
public enum DerivedValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// An integer value from an `Int`, the type counts usually have.
    public static func integer(_ value: Int) -> DerivedValue {
        .integer(Int64(value))
    }
}

extension DerivedValue: CustomStringConvertible {
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
