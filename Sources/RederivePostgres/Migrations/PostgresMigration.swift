#if PostgreSQL
import Rederive
import RederiveSQL

/// One of an app's schema migrations, as PostgreSQL applies it: an identifier, a change written in
/// terms both stores understand, and the processors it makes stale.
public struct PostgresMigration: Sendable {
    /// What the migration changes.
    public enum Change: Sendable {
        /// `ALTER TABLE ADD COLUMN` with the column's declared default, so existing rows get it.
        case addColumn(table: String, column: OutputColumn)
        case addIndex(name: String, table: String, columns: [String], unique: Bool)
        case renameColumn(table: String, from: String, to: String)
        /// SQL statements run in order.
        case sql([String])
    }

    /// A stable identifier: recorded once applied, never applied again.
    public let id: String
    public let change: Change
    /// Processors whose values the migration makes stale, in the same transaction.
    public let invalidates: [String]

    public init(id: String, change: Change, invalidates: [String] = []) {
        self.id = id
        self.change = change
        self.invalidates = invalidates
    }

    /// The statements that make the change, every identifier quoted.
    var statements: [String] {
        switch change {
        case .addColumn(let table, let column):
            ["ALTER TABLE \(PostgresSQL.identifier(table)) ADD COLUMN \(PostgresSQL.definition(of: column))"]
        case .addIndex(let name, let table, let columns, let unique):
            ["""
             CREATE \(unique ? "UNIQUE " : "")INDEX \(PostgresSQL.identifier(name)) ON \(PostgresSQL.identifier(table)) \
             (\(columns.map(PostgresSQL.identifier).joined(separator: ", ")))
             """]
        case .renameColumn(let table, let from, let to):
            ["ALTER TABLE \(PostgresSQL.identifier(table)) RENAME COLUMN \(PostgresSQL.identifier(from)) TO \(PostgresSQL.identifier(to))"]
        case .sql(let statements):
            statements
        }
    }
}
#endif
