/// The database as a ``SchemaMigration/backfill(_:invalidates:_:)`` step sees it, inside the
/// migration's transaction, on any store: statements with bound values, and rows back.
///
/// ```swift
/// .backfill("count-words") { db in
///     for row in try db.rows("SELECT id, body FROM notes") {
///         let words = try row.text("body")?.split(separator: " ").count ?? 0
///         try db.execute("UPDATE notes SET words = \(words) WHERE id = \(try row.integer("id"))")
///     }
/// }
/// ```
///
/// Values interpolated into a ``MigrationSQL`` are bound as parameters, in the store's own placeholders,
/// so the same backfill runs on SQLite and on PostgreSQL as long as its SQL is common to both. The
/// calls block until the store answers: use the database only inside the step, on the thread that
/// called it.
public protocol MigrationDatabase {
    /// Runs one statement.
    func execute(_ statement: MigrationSQL) throws

    /// Runs a query and returns all its rows.
    func rows(_ query: MigrationSQL) throws -> [MigrationRow]
}
