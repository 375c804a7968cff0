/// A migration step only one kind of store can run, given that store's own connection: RederiveSQLite's
/// `.custom` step, for example, gets GRDB's `Database`.
///
/// A store runs the steps it recognizes by their type. Every other store refuses a migration list with a
/// pending step it cannot run before it applies anything, with ``summary`` in its message, so that a
/// database is never left half-migrated by a step written for another store.
public protocol StoreSpecificStep: Sendable {
    /// What the step is, for that refusal: "a custom step, written against SQLite".
    var summary: String { get }
}
