import GRDB
import Rederive

/// A migration step that gets GRDB's `Database` inside the migration's transaction: SQLite only.
///
/// ```swift
/// .custom("split-names", invalidates: [.processor("quickness", of: recipes)]) { db in
///     let rows = try Row.fetchAll(db, sql: "SELECT id, title FROM recipes")
///     ...
/// }
/// ```
///
/// For what `SchemaMigration.backfill(_:invalidates:_:)` cannot say: GRDB's records, its query
/// interface, SQLite's own functions. A PostgreSQL store refuses a pending custom step before it
/// applies anything, so a migration list meant for both stores writes such a change as a backfill.
public struct SQLiteCustomStep: StoreSpecificStep {
    /// The change, given the database inside the migration's transaction.
    public let body: @Sendable (Database) throws -> Void

    /// A step that runs `body`.
    public init(_ body: @escaping @Sendable (Database) throws -> Void) {
        self.body = body
    }

    /// Names the step in a refusal by another store.
    public var summary: String { "a custom step, written against SQLite" }
}

/// Migration steps only SQLite can run.
extension SchemaMigration {
    /// Any change, given GRDB's `Database` inside the migration's transaction; it can read the old
    /// data before it changes it. SQLite only (``SQLiteCustomStep``).
    public static func custom(
        _ id: String, invalidates: [ProcessorReference] = [], _ body: @escaping @Sendable (Database) throws -> Void
    ) -> SchemaMigration {
        SchemaMigration(id, .storeSpecific(SQLiteCustomStep(body)), invalidates: invalidates)
    }
}
