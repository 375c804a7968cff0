/// A statement for a ``MigrationDatabase``: SQL text in which interpolated values are bound
/// parameters, never spliced text.
///
/// `"UPDATE notes SET words = \(count) WHERE id = \(id)"` binds `count` and `id`; `\(raw: name)` inserts
/// text as it is, for a table or column name the step computes.
public struct MigrationSQL: Sendable, Hashable, ExpressibleByStringInterpolation {
    /// One piece of the statement: SQL text, or a value to bind.
    package enum Piece: Sendable, Hashable {
        case text(String)
        case value(DerivedValue)
    }

    /// The statement's pieces, in order.
    package let pieces: [Piece]

    /// Plain SQL, without parameters.
    public init(_ sql: String) {
        pieces = [.text(sql)]
    }

    /// Plain SQL, without parameters.
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// SQL with its interpolated values bound.
    public init(stringInterpolation: StringInterpolation) {
        pieces = stringInterpolation.pieces
    }

    /// The statement with `placeholder(n)` for its n-th value (from 1), and the values in order.
    package func rendered(placeholder: (Int) -> String) -> (sql: String, values: [DerivedValue]) {
        var sql = ""
        var values: [DerivedValue] = []
        for piece in pieces {
            switch piece {
            case .text(let text):
                sql += text
            case .value(let value):
                values.append(value)
                sql += placeholder(values.count)
            }
        }
        return (sql, values)
    }

    /// Builds a statement from literal SQL and interpolated values.
    public struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var pieces: [Piece] = []

        /// Room for a statement of `literalCapacity` characters and `interpolationCount` values.
        public init(literalCapacity: Int, interpolationCount: Int) {
            pieces.reserveCapacity(interpolationCount * 2 + 1)
        }

        /// SQL text.
        public mutating func appendLiteral(_ literal: String) {
            pieces.append(.text(literal))
        }

        /// Text inserted as it is, not bound: a name the step computes. Never a value from the data.
        public mutating func appendInterpolation(raw text: String) {
            pieces.append(.text(text))
        }

        /// A bound value.
        public mutating func appendInterpolation(_ value: DerivedValue) {
            pieces.append(.value(value))
        }

        /// A bound integer, or NULL.
        public mutating func appendInterpolation(_ value: Int?) {
            pieces.append(.value(value.map { .integer(Int64($0)) } ?? .null))
        }

        /// A bound integer, or NULL.
        public mutating func appendInterpolation(_ value: Int64?) {
            pieces.append(.value(value.map { .integer($0) } ?? .null))
        }

        /// A bound boolean, as the integer 1 or 0, or NULL.
        public mutating func appendInterpolation(_ value: Bool?) {
            pieces.append(.value(value.map { .integer($0 ? 1 : 0) } ?? .null))
        }

        /// A bound floating-point number, or NULL.
        public mutating func appendInterpolation(_ value: Double?) {
            pieces.append(.value(value.map { .real($0) } ?? .null))
        }

        /// A bound text, or NULL.
        public mutating func appendInterpolation(_ value: String?) {
            pieces.append(.value(value.map { .text($0) } ?? .null))
        }

        /// Bound bytes, or NULL.
        public mutating func appendInterpolation(_ value: [UInt8]?) {
            pieces.append(.value(value.map { .blob($0) } ?? .null))
        }
    }
}
