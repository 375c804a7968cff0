import ArgumentParser
import Foundation
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
        try ValueBounds.busyTimeout.check(busyTimeout, "--busy-timeout")
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

    /// Opens a database that must already exist, and prepares the pipelines the command acts on: for
    /// commands that read or change what is there, a mistyped path is an error rather than a new,
    /// empty database left behind.
    func openExistingStore() async throws -> any CommandStore {
        _ = try pipelines()  // an unknown pipeline name is reported first, like any other bad argument
        try requireExistingDatabase()
        return try await openStore()
    }

    /// Throws unless a file is at ``databasePath``; a server database is checked by connecting to it.
    func requireExistingDatabase() throws {
        guard !isPostgres else { return }
        guard FileManager.default.fileExists(atPath: databasePath) else {
            throw RederiveError(.file, "no database at \(databasePath) (create one with rederive import or rederive generate)")
        }
    }

    /// Opens the database, SQLite or PostgreSQL by ``databasePath``, creating it when missing, and
    /// prepares the pipelines the command acts on. For commands that write records or runs.
    func openStore() async throws -> any CommandStore {
        let store = try await openUnprepared()
        for pipeline in try pipelines() {
            try await store.prepare(pipeline)
        }
        return store
    }

    /// Opens the database without preparing any pipeline.
    func openUnprepared() async throws -> any CommandStore {
        guard isPostgres else {
            return try SQLiteStore(path: databasePath, busyTimeout: busyTimeout)
        }
        #if PostgreSQL
        return try await PostgresStore(location: PostgresLocation(url: databasePath, environment: environment.variables))
        #else
        throw postgresUnavailable
        #endif
    }

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
