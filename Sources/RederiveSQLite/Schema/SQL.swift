import Foundation
import GRDB
import Rederive
import RederiveSQL

/// SQLite's SQL, for the statements the stores share and the SQLite store's own.
enum SQL: SQLDialect {
    /// A quoted identifier: `room_scans` becomes `"room_scans"`, and a `"` inside a name is doubled,
    /// as SQLite reads it (GRDB's `quotedDatabaseIdentifier` leaves it as it is).
    static func identifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A quoted string literal, for names written into trigger bodies.
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// A derived value as a literal; a NaN or an infinity, which SQLite has no literal for, as `NULL`.
    static func literal(_ value: DerivedValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): value.isFinite ? "\(value)" : "NULL"
        case .text(let value): literal(value)
        case .blob(let bytes): "X'" + bytes.map { hex($0) }.joined() + "'"
        }
    }

    static func columnType(_ type: ColumnType) -> String {
        SQLiteStorage.columnType(type)
    }

    /// Every derived column declares its default, `NULL` included.
    static func defaultClause(_ value: DerivedValue) -> String {
        " DEFAULT \(literal(value))"
    }

    static let recordIDDefinition = "INTEGER PRIMARY KEY"

    static func companionIDDefinition(referencing table: String, _ id: String) -> String {
        "id INTEGER PRIMARY KEY REFERENCES \(table)(\(id)) ON DELETE CASCADE"
    }

    static let addColumn = "ADD COLUMN"

    static let missingKey = "NULL"

    /// SQLite compares names without regard to case.
    static func comparable(_ columnName: String) -> String {
        columnName.lowercased()
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}

extension DerivedValue {
    /// The value as GRDB binds it.
    package var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let value): value.databaseValue
        case .real(let value): value.databaseValue
        case .text(let value): value.databaseValue
        case .blob(let bytes): Data(bytes).databaseValue
        }
    }
}
