import Foundation
import GRDB
import Rederive

/// SQL text pieces built from names a pipeline declares.
enum SQL {
    /// A quoted identifier: `room_scans` becomes `"room_scans"`.
    static func identifier(_ name: String) -> String {
        name.quotedDatabaseIdentifier
    }

    /// A quoted string literal, for names written into trigger bodies.
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// A column type and default as written in `CREATE TABLE` and `ALTER TABLE ADD COLUMN`.
    static func definition(of column: OutputColumn) -> String {
        "\(identifier(column.name)) \(SQLiteStorage.columnType(column.type)) DEFAULT \(literal(of: column.defaultValue))"
    }

    static func literal(of value: DerivedValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): value.isFinite ? "\(value)" : "NULL"
        case .text(let value): literal(value)
        case .blob(let bytes): "X'" + bytes.map { hex($0) }.joined() + "'"
        }
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
