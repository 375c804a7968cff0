import ArgumentParser
import Foundation
import Logging
import Rederive
import RederiveSQLite
#if PostgreSQL
import RederivePostgres
#endif

/// `--db` and `--pipeline`, shared by every subcommand.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .customLong("db"), help: ArgumentHelp(
        "The SQLite database file, or a PostgreSQL URL (postgres://user@host:port/database?sslmode=require).",
        discussion: "Defaults to $REDERIVE_DB, or ./rederive.sqlite. A PostgreSQL password comes from $PGPASSWORD or ~/.pgpass.",
        valueName: "path-or-url"
    ))
    var path: String?

    @Option(help: ArgumentHelp("Act on this pipeline only (all registered pipelines by default).", valueName: "name"))
    var pipeline: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds to wait for another connection's write lock before failing.", valueName: "seconds"))
    var busyTimeout: Double = SQLiteStore.defaultBusyTimeout

    var environment: CommandEnvironment { CommandEnvironment.current }

    func validate() throws {
        if let path, isPostgres, CommandLinePassword.isIn(path) {
            environment.console.errorLine("rederive: \(CommandLinePassword.warning)")
        }
        try ValueBounds.busyTimeout.check(busyTimeout, "--busy-timeout")
        if let scheme = unsupportedScheme {
            throw ValidationError(
                "--db \(PostgresSQLRedaction.redacted(databasePath)) is a \(scheme):// URL, which no rederive store reads; give a SQLite file path, or a postgres:// or postgresql:// URL"
            )
        }
    }

    /// The scheme of a URL given as ``databasePath`` that names neither PostgreSQL nor a file, which
    /// would otherwise be taken for a file name.
    var unsupportedScheme: String? {
        guard let separator = databasePath.range(of: "://") else { return nil }
        let scheme = databasePath[..<separator.lowerBound]
        guard let first = scheme.first, first.isASCII, first.isLetter,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }),
              !isPostgres
        else { return nil }
        return String(scheme)
    }

    var databasePath: String {
        path ?? environment.variables["REDERIVE_DB"] ?? "rederive.sqlite"
    }

    /// The pipelines the command acts on.
    func pipelines() throws -> [Pipeline] {
        let registry = environment.registry
        if let pipeline {
            return [try registry.pipeline(named: pipeline)]
        }
        return registry.pipelines
    }

    /// The one pipeline a command that needs exactly one acts on.
    func singlePipeline(for command: String) throws -> Pipeline {
        let all = try pipelines()
        guard all.count == 1, let only = all.first else {
            throw RederiveError(
                .invalidArgument,
                "\(command) needs one pipeline; choose with --pipeline (registered: \(environment.registry.pipelines.map(\.name).joined(separator: ", ")))"
            )
        }
        return only
    }

    /// Whether ``databasePath`` names a PostgreSQL database rather than a SQLite file.
    var isPostgres: Bool {
        let lowered = databasePath.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://")
    }

    /// The database as messages name it: the path, or the URL without its password.
    var databaseName: String {
        guard isPostgres else { return databasePath }
        #if PostgreSQL
        return (try? PostgresLocation(url: databasePath, environment: environment.variables).description)
            ?? PostgresSQLRedaction.redacted(databasePath)
        #else
        return PostgresSQLRedaction.redacted(databasePath)
        #endif
    }

    /// The database as it was given, for a command that a message suggests: a URL keeps its
    /// `sslmode` and other parameters, so that the command connects as this one did, and its password
    /// is masked.
    var databaseArgument: String {
        isPostgres ? PostgresSQLRedaction.redacted(databasePath) : databasePath
    }

    /// Opens a database that rederive prepared, for a command that only reads: nothing in it changes,
    /// not its schema, not its journal mode, and a file the user may not write reads as well. A missing
    /// file, a directory, a database rederive never prepared or that an older rederive did, and a
    /// pipeline the database is not prepared for are each reported in one line.
    func openForReading() async throws -> any CommandStore {
        let pipelines = try pipelines()  // an unknown pipeline name is reported first, like any other bad argument
        let store: any CommandStore
        if isPostgres {
            store = try await openServerStore(preparing: false)
        } else {
            store = try SQLiteStore.openForReading(path: databasePath, busyTimeout: busyTimeout)
        }
        for pipeline in pipelines where try await store.needsPreparation(pipeline) {
            throw RederiveError(
                .schemaMismatch,
                "\(databaseName) is not prepared for pipeline \"\(pipeline.name)\" (its table, columns or triggers differ from what the pipeline declares); reading changes nothing, so prepare it first with rederive run"
            )
        }
        return store
    }

    /// Opens an existing database for a command that changes what rederive keeps there (stamps,
    /// failures, derived values): a database rederive never prepared is refused, one an older rederive
    /// prepared is upgraded, and the pipelines the command acts on are prepared, all at once.
    func openForWriting() async throws -> any CommandStore {
        try await open(creating: false, requiringPrepared: true)
    }

    /// Opens the database for a command that writes records or runs, preparing it, and the pipelines
    /// the command acts on, all at once; a preparation that fails leaves the database as it was.
    /// Only with `creating` is a missing file created: `import`, `generate`, `demo` and `run --create`.
    /// `serverLogger` receives what a PostgreSQL store logs, such as the server going out of reach
    /// and coming back; nothing by default.
    func openPreparing(creating: Bool, serverLogger: Logger? = nil) async throws -> any CommandStore {
        try await open(creating: creating, requiringPrepared: false, serverLogger: serverLogger)
    }

    private func open(creating: Bool, requiringPrepared: Bool, serverLogger: Logger? = nil) async throws -> any CommandStore {
        let pipelines = try pipelines()
        guard isPostgres else {
            return try SQLiteStore.openForWriting(
                path: databasePath, pipelines: pipelines, creating: creating,
                requiringPrepared: requiringPrepared, busyTimeout: busyTimeout
            )
        }
        let store = try await openServerStore(preparing: !requiringPrepared, logger: serverLogger)
        for pipeline in pipelines {
            try await store.prepare(pipeline)
        }
        return store
    }

    /// Opens the PostgreSQL database without preparing any pipeline; with `preparing` false, nothing is
    /// created there and a database without rederive's tables is refused.
    func openServerStore(preparing: Bool, logger: Logger? = nil) async throws -> any CommandStore {
        #if PostgreSQL
        return try await PostgresStore(
            location: serverLocation(), logger: logger ?? PostgresStore.silent, creatingBookkeeping: preparing
        )
        #else
        throw postgresUnavailable
        #endif
    }

    #if PostgreSQL
    /// The PostgreSQL database of ``databasePath``, warning on standard error, as libpq does, of a
    /// password file that others may read and that is therefore ignored.
    func serverLocation() throws -> PostgresLocation {
        let location = try PostgresLocation(url: databasePath, environment: environment.variables)
        if let warning = location.passwordFileWarning {
            environment.console.errorLine("rederive: warning: \(warning)")
        }
        return location
    }
    #endif

    /// What a build without the PostgreSQL trait answers a PostgreSQL URL.
    var postgresUnavailable: RederiveError {
        RederiveError(
            .invalidArgument,
            "this rederive was built without PostgreSQL support; build it with `swift build --traits PostgreSQL` to use \(databaseName)"
        )
    }

    /// Throws, in one line, when ``databasePath`` is not a PostgreSQL URL.
    func requirePostgres(for command: String, reason: String) throws {
        guard !isPostgres else { return }
        throw RederiveError(.invalidArgument, "rederive \(command) works on PostgreSQL databases only, not on \(databaseName): \(reason)")
    }

    /// Throws, in one line, when ``databasePath`` is not a SQLite file.
    func requireSQLite(for command: String, alternative: String? = nil) throws {
        guard isPostgres else { return }
        throw RederiveError(
            .invalidArgument,
            "rederive \(command) works on SQLite databases only, not on \(databaseName)" + (alternative.map { "; \($0)" } ?? "")
        )
    }
}

/// A PostgreSQL URL with its password hidden, for messages about URLs that are not parsed.
enum PostgresSQLRedaction {
    static func redacted(_ url: String) -> String {
        guard let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].lastIndex(of: "@") else { return url }
        let credentials = url[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return url }
        return String(url[..<colon]) + ":***" + String(url[at...])
    }
}
