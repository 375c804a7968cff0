import ArgumentParser
import Foundation
import Logging
import Rederive
import RederiveSQLite

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
        if let path, let warning = (try? address)?.opener.exposedSecretWarning(in: path) {
            environment.console.errorLine("rederive: \(warning)")
        }
        try ValueBounds.busyTimeout.check(busyTimeout, "--busy-timeout")
        if path?.isEmpty == true {
            throw ValidationError("--db is empty; name a SQLite database file or a PostgreSQL URL")
        }
        if path == nil, environment.variables["REDERIVE_DB"]?.isEmpty == true {
            throw ValidationError("$REDERIVE_DB is set but empty; set it to a SQLite database file or a PostgreSQL URL, or unset it to use ./rederive.sqlite")
        }
        do {
            _ = try address
        } catch let error as RederiveError {
            throw ValidationError("--db \(error.message)")
        }
    }

    /// The scheme ``databasePath`` names and the opener that opens it, from the environment's
    /// ``StoreFactory``; throws for a URL of a scheme no opener reads.
    var address: StoreFactory.Address {
        get throws { try environment.stores.address(of: databasePath) }
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

    /// The file ``databasePath`` names when rederive's SQLite store opens it; nil for any other store.
    var sqliteFile: String? {
        (try? address)?.opener is SQLiteOpener ? SQLiteOpener.path(of: databasePath) : nil
    }

    /// The database as messages name it: the path, or the URL without its password.
    var databaseName: String {
        guard let address = try? address else { return PostgresSQLRedaction.redacted(databasePath) }
        return address.opener.name(of: databasePath, variables: environment.variables)
    }

    /// The database as it was given, for a command that a message suggests: a URL keeps its
    /// `sslmode` and other parameters, so that the command connects as this one did, and its password
    /// is masked.
    var databaseArgument: String {
        (try? address)?.opener.argument(for: databasePath) ?? PostgresSQLRedaction.redacted(databasePath)
    }

    /// Opens the database through the environment's ``StoreFactory`` in `mode`, for `pipelines`.
    /// `serverLogger` receives what a store on a server logs, such as the server going out of reach
    /// and coming back; nothing by default.
    func open(_ mode: StoreRequest.Mode, pipelines: [Pipeline], serverLogger: Logger? = nil) async throws -> any CommandStore {
        let console = environment.console
        let request = StoreRequest(
            location: databasePath, mode: mode, pipelines: pipelines, busyTimeout: busyTimeout,
            variables: environment.variables, logger: serverLogger, warn: { console.errorLine("rederive: \($0)") }
        )
        let store = try await address.opener.open(request)
        OpenedStores.current?.add(store)
        return store
    }

    /// Opens a database that rederive prepared, for a command that only reads: nothing in it changes,
    /// not its schema, not its journal mode, and a file the user may not write reads as well. A missing
    /// file, a directory, a database rederive never prepared or that an older rederive did, and a
    /// pipeline the database is not prepared for are each reported in one line.
    func openForReading() async throws -> any CommandStore {
        let pipelines = try pipelines()  // an unknown pipeline name is reported first, like any other bad argument
        let store = try await open(.reading(allowingUnprepared: false), pipelines: pipelines)
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
        try await open(.writing, pipelines: try pipelines())
    }

    /// Opens the database for a command that writes records or runs, preparing it, and the pipelines
    /// the command acts on, all at once; a preparation that fails leaves the database as it was.
    /// Only with `creating` is a missing file created: `import`, `generate`, `demo` and `run --create`.
    /// `serverLogger` receives what a PostgreSQL store logs, such as the server going out of reach
    /// and coming back; nothing by default.
    func openPreparing(creating: Bool, serverLogger: Logger? = nil) async throws -> any CommandStore {
        try await open(.preparing(creating: creating), pipelines: try pipelines(), serverLogger: serverLogger)
    }

    /// Throws, in one line, when ``databasePath`` names a database that one process derives at a time.
    func requireSharedRuns(for command: String) throws {
        guard (try? address)?.opener.sharesRunsAcrossProcesses != true else { return }
        throw RederiveError(
            .invalidArgument,
            "rederive \(command) joins a run that other processes share, and \(databaseName) is derived by one process at a time (PostgreSQL databases are shared)"
        )
    }

    /// The SQLite file ``databasePath`` names; throws, in one line, when it names another store.
    @discardableResult
    func requireSQLite(for command: String, alternative: String? = nil) throws -> String {
        if let sqliteFile { return sqliteFile }
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
