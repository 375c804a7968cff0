/// Opens the stores of one kind for the command line, by the URL scheme of `--db`.
///
/// rederive registers ``SQLiteOpener`` (plain paths and `sqlite:`) and ``PostgresOpener``
/// (`postgres://`, `postgresql://`); an app registers its own with
/// ``RederiveCommand/main(pipelines:samples:migrations:stores:)`` or
/// ``RederiveCommand/bootstrap(pipelines:samples:migrations:stores:mountedAt:)``.
public protocol StoreOpener: Sendable {
    /// The URL schemes this opener reads, lowercased and without `:` (`["postgres", "postgresql"]`).
    var schemes: [String] { get }

    /// How messages name the database at `location`: never with a password.
    func name(of location: String, variables: [String: String]) -> String

    /// The database at `location` as a command that a message suggests gives it again, so that it
    /// connects as this one did: its parameters kept, a password masked.
    func argument(for location: String) -> String

    /// Whether processes, on this host or others, derive one run of such a database together, so
    /// that `run --workers-only` can join one: a PostgreSQL database, not a SQLite file, which one
    /// process derives at a time.
    var sharesRunsAcrossProcesses: Bool { get }

    /// A warning to print once when `location` itself carries a secret that `ps` shows, such as a
    /// password in a URL; nil when it carries none.
    func exposedSecretWarning(in location: String) -> String?

    /// Opens the database of `request` in its mode (``StoreRequest/Mode``), preparing its pipelines
    /// where the mode says so. Throws, in one line, what stops it.
    func open(_ request: StoreRequest) async throws -> any CommandStore
}
