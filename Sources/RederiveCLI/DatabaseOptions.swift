import ArgumentParser
import Foundation
import Rederive
import RederiveSQLite

/// `--db` and `--pipeline`, shared by every subcommand.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .customLong("db"), help: ArgumentHelp(
        "The SQLite database file.",
        discussion: "Defaults to $REDERIVE_DB, or ./rederive.sqlite.",
        valueName: "path"
    ))
    var path: String?

    @Option(help: ArgumentHelp("Act on this pipeline only (all registered pipelines by default).", valueName: "name"))
    var pipeline: String?

    @Option(help: ArgumentHelp("Seconds to wait for another connection's write lock before failing.", valueName: "seconds"))
    var busyTimeout: Double = SQLiteStore.defaultBusyTimeout

    var environment: CommandEnvironment { CommandEnvironment.current }

    func validate() throws {
        if !(busyTimeout >= 0 && busyTimeout.isFinite) { throw ValidationError("--busy-timeout must be a number of seconds") }
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

    /// Opens a database that must already exist, and prepares the pipelines the command acts on: for
    /// commands that read or change what is there, a mistyped path is an error rather than a new,
    /// empty database left behind.
    func openExistingStore() async throws -> SQLiteStore {
        _ = try pipelines()  // an unknown pipeline name is reported first, like any other bad argument
        try requireExistingDatabase()
        return try await openStore()
    }

    /// Throws unless a file is at ``databasePath``.
    func requireExistingDatabase() throws {
        guard FileManager.default.fileExists(atPath: databasePath) else {
            throw RederiveError(.file, "no database at \(databasePath) (create one with rederive import or rederive generate)")
        }
    }

    /// Opens the database, creating it when missing, and prepares the pipelines the command acts on.
    /// For commands that write records or runs.
    func openStore() async throws -> SQLiteStore {
        let store = try SQLiteStore(path: databasePath, busyTimeout: busyTimeout)
        for pipeline in try pipelines() {
            try await store.prepare(pipeline)
        }
        return store
    }
}
