/// A row a ``MigrationDatabase`` query returned: its columns' names and values.
///
/// Stores hand back integers, floating-point numbers, text and bytes; other types (dates, JSON,
/// decimals beyond 64 bits) should be cast in the query to one of those.
public struct MigrationRow: Sendable, Hashable {
    /// The columns' names, in the query's order.
    public let columns: [String]
    /// The values, one per column.
    public let values: [DerivedValue]

    /// A row as a store read it.
    public init(columns: [String], values: [DerivedValue]) {
        self.columns = columns
        self.values = values
    }

    /// The value of the first column named `column`; nil when the row has none.
    public subscript(_ column: String) -> DerivedValue? {
        columns.firstIndex(of: column).map { values[$0] }
    }

    /// The value of `column`: an error when the row has no such column.
    public func value(_ column: String) throws(RederiveError) -> DerivedValue {
        guard let value = self[column] else {
            throw RederiveError(.unknownName, "the row has no column \"\(column)\" (columns: \(columns.joined(separator: ", ")))")
        }
        return value
    }

    /// The integer in `column`, nil for NULL; an error for another type.
    public func integer(_ column: String) throws(RederiveError) -> Int64? {
        switch try value(column) {
        case .null: return nil
        case .integer(let value): return value
        case let other: throw mismatch(column, other, "an integer")
        }
    }

    /// The number in `column` (an integer too), nil for NULL; an error for another type.
    public func real(_ column: String) throws(RederiveError) -> Double? {
        switch try value(column) {
        case .null: return nil
        case .integer(let value): return Double(value)
        case .real(let value): return value
        case let other: throw mismatch(column, other, "a number")
        }
    }

    /// The text in `column`, nil for NULL; an error for another type.
    public func text(_ column: String) throws(RederiveError) -> String? {
        switch try value(column) {
        case .null: return nil
        case .text(let value): return value
        case let other: throw mismatch(column, other, "text")
        }
    }

    /// The bytes in `column`, nil for NULL; an error for another type.
    public func blob(_ column: String) throws(RederiveError) -> [UInt8]? {
        switch try value(column) {
        case .null: return nil
        case .blob(let value): return value
        case let other: throw mismatch(column, other, "bytes")
        }
    }

    private func mismatch(_ column: String, _ value: DerivedValue, _ expected: String) -> RederiveError {
        RederiveError(.schemaMismatch, "column \"\(column)\" holds \(value), not \(expected)")
    }
}
