#if PostgreSQL
import Foundation
import PostgresNIO
import Rederive

/// Quoting and statement building: every identifier is quoted, every value a bound parameter.
enum PostgresSQL {
    /// `"name"`, with embedded quotes doubled.
    static func identifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `'text'`, with embedded quotes doubled: only for DDL, where parameters cannot go.
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// The column type a derived column of `type` has on PostgreSQL.
    static func type(_ type: ColumnType) -> String {
        PostgresStorage.columnType(type)
    }

    /// A derived value as a literal, for column defaults.
    static func literal(_ value: DerivedValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): value.isFinite ? "\(value)::double precision" : "'\(value.isNaN ? "NaN" : value > 0 ? "Infinity" : "-Infinity")'::double precision"
        case .text(let value): literal(value)
        case .blob(let bytes): "'\\x" + bytes.map { String(format: "%02x", $0) }.joined() + "'::bytea"
        }
    }

    /// `name type DEFAULT value` for a derived column.
    static func definition(of column: OutputColumn) -> String {
        var definition = "\(identifier(column.name)) \(type(column.type))"
        if column.defaultValue != .null {
            definition += " DEFAULT \(literal(column.defaultValue))"
        }
        return definition
    }
}

/// A statement with numbered parameters, built piece by piece.
struct SQLStatement {
    var sql = ""
    var binds = PostgresBindings()
    /// Each parameter's type as sent; nil for a NULL.
    private(set) var parameterTypes: [PostgresDataType?] = []

    init(_ sql: String = "") {
        self.sql = sql
    }

    /// Binds a value and returns its placeholder, cast to `type` when given (needed where a NULL or a
    /// text must be read as some other type).
    mutating func bind<Value: PostgresDynamicTypeEncodable>(_ value: Value, as type: String? = nil) -> String {
        binds.append(value)
        parameterTypes.append(value.psqlType)
        return placeholder(type)
    }

    /// Binds a NULL of `type`.
    mutating func bindNull(as type: String) -> String {
        binds.appendNull()
        parameterTypes.append(nil)
        return placeholder(type)
    }

    /// Binds a derived value as a column of `type` is to hold it (``PostgresStorage/rules``): NaN and
    /// -0.0 as the SQLite store holds them, so that both stores hold the same values.
    mutating func bind(_ value: DerivedValue, column type: ColumnType) -> String {
        let sqlType = PostgresSQL.type(type)
        switch PostgresStorage.rules.stored(value, in: type) {
        case .null: return bindNull(as: sqlType)
        case .integer(let value): return bind(value, as: sqlType)
        case .real(let value): return bind(value, as: sqlType)
        case .text(let value): return bind(value, as: sqlType)
        case .blob(let bytes): return bind(ByteBuffer(bytes: bytes), as: sqlType)
        }
    }

    private func placeholder(_ type: String?) -> String {
        "$\(binds.count)" + (type.map { "::\($0)" } ?? "")
    }

    var query: PostgresQuery { PostgresQuery(unsafeSQL: sql, binds: binds) }
}
#endif
