import RederiveSQLite

/// Opens SQLite database files: a plain path, `sqlite:PATH` or `sqlite://PATH`
/// (`sqlite:///var/db/rooms.sqlite` for an absolute path).
public struct SQLiteOpener: StoreOpener {
    /// The opener rederive registers for `sqlite` and plain paths.
    public init() {}

    /// `sqlite`.
    public var schemes: [String] { ["sqlite"] }

    /// The file a location names: the location itself, or what follows `sqlite:` or `sqlite://`.
    public static func path(of location: String) -> String {
        guard location.lowercased().hasPrefix("sqlite:") else { return location }
        let rest = location.dropFirst("sqlite:".count)
        return String(rest.hasPrefix("//") ? rest.dropFirst(2) : rest)
    }

    /// The file's path.
    public func name(of location: String, variables: [String: String]) -> String { Self.path(of: location) }

    /// The location as it was given.
    public func argument(for location: String) -> String { location }

    /// A SQLite file is derived by one process at a time; a second run waits for the first.
    public var sharesRunsAcrossProcesses: Bool { false }

    /// A path carries no secret.
    public func exposedSecretWarning(in location: String) -> String? { nil }

    /// Opens the file as `SQLiteStore` does for each mode: read-only without locks where it can,
    /// as a preview on one connection, or for writing with its bookkeeping and pipelines prepared in
    /// one transaction.
    public func open(_ request: StoreRequest) async throws -> any CommandStore {
        let path = Self.path(of: request.location)
        switch request.mode {
        case .reading(let allowingUnprepared):
            return try SQLiteStore.openForReading(path: path, busyTimeout: request.busyTimeout, allowingUnprepared: allowingUnprepared)
        case .previewing:
            return try SQLiteStore.openForPreview(path: path, busyTimeout: request.busyTimeout)
        case .writing:
            return try SQLiteStore.openForWriting(
                path: path, pipelines: request.pipelines, creating: false, requiringPrepared: true, busyTimeout: request.busyTimeout
            )
        case .preparing(let creating):
            // Only a command that may create the database (`import`, `generate`, `demo`, `run --create`)
            // prepares one that holds neither rederive's tables nor a pipeline's table.
            return try SQLiteStore.openForWriting(
                path: path, pipelines: request.pipelines, creating: creating, requiringPrepared: false,
                preparingForeign: creating, busyTimeout: request.busyTimeout
            )
        }
    }
}
