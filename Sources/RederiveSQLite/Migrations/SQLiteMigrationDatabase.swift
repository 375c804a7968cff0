import Foundation
import GRDB
import Rederive

/// A backfill's `MigrationDatabase` on SQLite: GRDB's `Database` inside the migration's transaction,
/// values bound to `?` placeholders.
struct SQLiteMigrationDatabase: MigrationDatabase {
    let db: Database

    func execute(_ statement: MigrationSQL) throws {
        let (sql, arguments) = Self.prepared(statement)
        try db.execute(sql: sql, arguments: arguments)
    }

    func rows(_ query: MigrationSQL) throws -> [MigrationRow] {
        let (sql, arguments) = Self.prepared(query)
        return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
            MigrationRow(columns: Array(row.columnNames), values: row.databaseValues.map(Self.value))
        }
    }

    private static func prepared(_ statement: MigrationSQL) -> (String, StatementArguments) {
        let (sql, values) = statement.rendered { _ in "?" }
        return (sql, StatementArguments(values.map(argument)))
    }

    private static func argument(_ value: DerivedValue) -> DatabaseValue {
        switch value {
        case .null: .null
        case .integer(let value): value.databaseValue
        case .real(let value): value.databaseValue
        case .text(let value): value.databaseValue
        case .blob(let bytes): Data(bytes).databaseValue
        }
    }

    private static func value(_ value: DatabaseValue) -> DerivedValue {
        switch value.storage {
        case .null: .null
        case .int64(let value): .integer(value)
        case .double(let value): .real(value)
        case .string(let value): .text(value)
        case .blob(let data): .blob(Array(data))
        }
    }
}
