/// One named change to an app's schema, applied once, in order, in its own transaction, on whichever
/// store the app's data lives in.
///
/// ```swift
/// let migrations = try SchemaMigrator([
///     .addColumn("add-rating", table: "recipes", column: .integer("rating", default: 0)),
///     .addIndex("index-slug", table: "recipes", columns: ["slug"], unique: true),
///     .renameColumn("rename-json", table: "recipes", from: "json", to: "payload"),
///     .sql("backfill-rating", "UPDATE recipes SET rating = 3 WHERE rating = 0"),
///     .backfill("count-words", invalidates: [.processor("word_count", of: recipes)]) { db in
///         // Reads the old data before changing it.
///         for row in try db.rows("SELECT id, title FROM recipes") {
///             let words = try row.text("title")?.split(separator: " ").count ?? 0
///             try db.execute("UPDATE recipes SET words = \(words) WHERE id = \(try row.integer("id"))")
///         }
///     },
/// ])
/// ```
///
/// Every step here runs on every store: the store writes adding, indexing and renaming in its own SQL,
/// and a ``backfill(_:invalidates:_:)`` reads and writes through ``MigrationDatabase``, which binds
/// values in the store's own way. Plain SQL is the app's, so it runs where its dialect does. A store may
/// also offer steps only it can run (``Step/storeSpecific(_:)``, such as RederiveSQLite's `.custom`,
/// given GRDB's `Database`): another store refuses a pending one before it applies anything.
public struct SchemaMigration: Sendable {
    /// What the migration does.
    public enum Step: Sendable {
        /// `ALTER TABLE ADD COLUMN` with the column's declared default, so existing rows get it.
        case addColumn(table: String, column: OutputColumn)
        /// `CREATE [UNIQUE] INDEX name ON table (columns)`.
        case addIndex(name: String, table: String, columns: [String], unique: Bool)
        /// `ALTER TABLE RENAME COLUMN`.
        case renameColumn(table: String, from: String, to: String)
        /// SQL statements run in order, for example an `UPDATE` that backfills a new column.
        case sql([String])
        /// Any change that reads data before it writes, through the store's ``MigrationDatabase``,
        /// inside the migration's transaction.
        case backfill(@Sendable (any MigrationDatabase) throws -> Void)
        /// A step only one kind of store can run; any other store refuses it before applying anything.
        case storeSpecific(any StoreSpecificStep)
    }

    /// A stable identifier: recorded once applied, never applied again.
    public let id: String
    /// What the migration does.
    public let step: Step
    /// Processors whose values this migration makes stale, each of the pipeline it names: their stamps
    /// are invalidated in the same transaction, so the next run recomputes them. A processor of the same
    /// name in another pipeline is left as it is.
    public let invalidates: [ProcessorReference]

    /// A migration of any step; the static functions below read better in a list.
    public init(_ id: String, _ step: Step, invalidates: [ProcessorReference] = []) {
        self.id = id
        self.step = step
        self.invalidates = invalidates
    }

    /// Adds `column` to `table`, with the column's declared default for existing rows.
    public static func addColumn(
        _ id: String, table: String, column: OutputColumn, invalidates: [ProcessorReference] = []
    ) -> SchemaMigration {
        SchemaMigration(id, .addColumn(table: table, column: column), invalidates: invalidates)
    }

    /// Creates an index named `id` on `columns` of `table`.
    public static func addIndex(_ id: String, table: String, columns: [String], unique: Bool = false) -> SchemaMigration {
        SchemaMigration(id, .addIndex(name: id, table: table, columns: columns, unique: unique))
    }

    /// Renames column `from` of `table` to `to`.
    public static func renameColumn(_ id: String, table: String, from: String, to: String) -> SchemaMigration {
        SchemaMigration(id, .renameColumn(table: table, from: from, to: to))
    }

    /// Runs `statements` in order, inside the migration's transaction.
    public static func sql(_ id: String, _ statements: String..., invalidates: [ProcessorReference] = []) -> SchemaMigration {
        SchemaMigration(id, .sql(statements), invalidates: invalidates)
    }

    /// Runs `body` inside the migration's transaction, given the database to read rows from and write
    /// to with bound values, on any store. Throwing rolls the migration back.
    public static func backfill(
        _ id: String, invalidates: [ProcessorReference] = [], _ body: @escaping @Sendable (any MigrationDatabase) throws -> Void
    ) -> SchemaMigration {
        SchemaMigration(id, .backfill(body), invalidates: invalidates)
    }
}

extension SchemaMigration.Step {
    /// The statements of a step that is SQL once written in a store's dialect (`identifier` quotes a
    /// name, `definition` declares a column with its default); nil for a backfill or a store's own step.
    package func statements(identifier: (String) -> String, definition: (OutputColumn) -> String) -> [String]? {
        switch self {
        case .addColumn(let table, let column):
            ["ALTER TABLE \(identifier(table)) ADD COLUMN \(definition(column))"]
        case .addIndex(let name, let table, let columns, let unique):
            ["""
             CREATE \(unique ? "UNIQUE " : "")INDEX \(identifier(name)) ON \(identifier(table)) \
             (\(columns.map(identifier).joined(separator: ", ")))
             """]
        case .renameColumn(let table, let from, let to):
            ["ALTER TABLE \(identifier(table)) RENAME COLUMN \(identifier(from)) TO \(identifier(to))"]
        case .sql(let statements):
            statements
        case .backfill, .storeSpecific:
            nil
        }
    }
}
