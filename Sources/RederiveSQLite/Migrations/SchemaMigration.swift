import GRDB
import Rederive
import RederiveSQL

/// One named change to an app's schema, applied once, in order, in its own transaction.
///
/// ```swift
/// let migrations = try SchemaMigrator([
///     .addColumn("add-rating", table: "recipes", column: .integer("rating", default: 0)),
///     .addIndex("index-slug", table: "recipes", columns: ["slug"], unique: true),
///     .renameColumn("rename-json", table: "recipes", from: "json", to: "payload"),
///     .sql("backfill-rating", "UPDATE recipes SET rating = 3 WHERE rating = 0"),
///     .custom("split-names", invalidates: ["quickness"]) { db in
///         // Read the old data before changing it.
///         let rows = try Row.fetchAll(db, sql: "SELECT id, title FROM recipes")
///         ...
///     },
/// ])
/// ```
///
/// The common changes, plain SQL included, need nothing from GRDB. Only a ``custom(_:invalidates:_:)``
/// step gets GRDB's `Database`, for changes that read data before they write, so migrations live with
/// the app's executable and its store, not with pipelines: pipelines stay free of SQLite.
public struct SchemaMigration: Sendable {
    /// What the migration does.
    public enum Step: Sendable {
        /// `ALTER TABLE ADD COLUMN` with the column's declared default, so existing rows get it.
        case addColumn(table: String, column: OutputColumn)
        case addIndex(name: String, table: String, columns: [String], unique: Bool)
        case renameColumn(table: String, from: String, to: String)
        /// SQL statements run in order, for example an `UPDATE` that backfills a new column.
        case sql([String])
        /// Any change, given the database inside the migration's transaction; it can read the old
        /// data before it changes it.
        case custom(@Sendable (Database) throws -> Void)
    }

    /// A stable identifier: recorded once applied, never applied again.
    public let id: String
    public let step: Step
    /// Processors whose values this migration makes stale: their stamps are invalidated in the same
    /// transaction, so the next run recomputes them.
    public let invalidates: [String]

    public init(_ id: String, _ step: Step, invalidates: [String] = []) {
        self.id = id
        self.step = step
        self.invalidates = invalidates
    }

    public static func addColumn(_ id: String, table: String, column: OutputColumn, invalidates: [String] = []) -> SchemaMigration {
        SchemaMigration(id, .addColumn(table: table, column: column), invalidates: invalidates)
    }

    public static func addIndex(_ id: String, table: String, columns: [String], unique: Bool = false) -> SchemaMigration {
        SchemaMigration(id, .addIndex(name: id, table: table, columns: columns, unique: unique))
    }

    public static func renameColumn(_ id: String, table: String, from: String, to: String) -> SchemaMigration {
        SchemaMigration(id, .renameColumn(table: table, from: from, to: to))
    }

    /// Runs `statements` in order, inside the migration's transaction.
    public static func sql(_ id: String, _ statements: String..., invalidates: [String] = []) -> SchemaMigration {
        SchemaMigration(id, .sql(statements), invalidates: invalidates)
    }

    public static func custom(
        _ id: String, invalidates: [String] = [], _ body: @escaping @Sendable (Database) throws -> Void
    ) -> SchemaMigration {
        SchemaMigration(id, .custom(body), invalidates: invalidates)
    }

    /// Applies the step and invalidates what it asks, inside the caller's transaction.
    func apply(_ db: Database) throws {
        switch step {
        case .addColumn(let table, let column):
            try db.execute(sql: "ALTER TABLE \(SQL.identifier(table)) ADD COLUMN \(SQL.definition(of: column))")
        case .addIndex(let name, let table, let columns, let unique):
            try db.execute(sql: """
                CREATE \(unique ? "UNIQUE " : "")INDEX \(SQL.identifier(name)) ON \(SQL.identifier(table)) \
                (\(columns.map(SQL.identifier).joined(separator: ", ")))
                """)
        case .renameColumn(let table, let from, let to):
            try db.execute(sql: "ALTER TABLE \(SQL.identifier(table)) RENAME COLUMN \(SQL.identifier(from)) TO \(SQL.identifier(to))")
        case .sql(let statements):
            for statement in statements {
                try db.execute(sql: statement)
            }
        case .custom(let body):
            try body(db)
        }
        for processor in invalidates {
            try db.execute(sql: "UPDATE rederive_stamps SET current = 0 WHERE processor = ? AND current = 1", arguments: [processor])
            try db.execute(sql: "UPDATE rederive_failures SET current = 0 WHERE processor = ? AND current = 1", arguments: [processor])
        }
    }
}
