import ArgumentParser
import Foundation
import Rederive

/// The throttles of `run` and `watch`: options that hold their claims while the database says so,
/// checked with a backoff while they hold, named by `rederive status` and logged when they start and
/// end.
struct ThrottleOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Hold claims while this SQL query returns true (one row of one boolean).",
        discussion: "Run read-only every --pause-while-interval seconds, backing off to 4 times that while it holds: a maintenance flag, autovacuum on the table, anything a query can read. A query that fails or returns anything else stops the run or watcher before it starts.",
        valueName: "sql"
    ))
    var pauseWhile: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("How often --pause-while runs its query.", valueName: "seconds"))
    var pauseWhileInterval: Double = 5

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "SQLite: hold claims while more of the write-ahead log than this waits to be checkpointed.",
        discussion: "Checked every second after a passive checkpoint, which copies what no reader needs any more; a long read in the app keeps the log from being checkpointed, and the run waits until it can be.",
        valueName: "MiB"
    ))
    var maxWalSize: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "PostgreSQL: hold claims while a streaming standby replays more than this behind.",
        discussion: "Read every second from pg_stat_replication (the role needs pg_monitor).",
        valueName: "seconds"
    ))
    var maxReplicaLag: Double?

    func validate() throws {
        try ValueBounds.throttleInterval.check(pauseWhileInterval, "--pause-while-interval")
        try ValueBounds.walMiB.check(maxWalSize, "--max-wal-size")
        try ValueBounds.replicaLag.check(maxReplicaLag, "--max-replica-lag")
        if let pauseWhile, pauseWhile.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw ValidationError("--pause-while needs a query")
        }
    }

    /// The throttles asked for, on `store`, after checking each once: a query that fails, a log or a
    /// lag this store cannot measure, is an error before the run starts.
    func throttles(on store: any CommandStore, database: DatabaseOptions) async throws -> [Throttle] {
        var throttles: [Throttle] = []
        if let pauseWhile {
            _ = try await store.conditionHolds(pauseWhile)
            throttles.append(.pausing(while: pauseWhile, on: store, every: .milliseconds(Int64(pauseWhileInterval * 1000))))
        }
        if let maxWalSize {
            guard try await store.uncheckpointedLogSize() != nil else {
                throw RederiveError(.invalidArgument, "--max-wal-size bounds a SQLite database's write-ahead log, and \(database.databaseName) has none")
            }
            throttles.append(.writeAheadLog(above: maxWalSize << 20, on: store))
        }
        if let maxReplicaLag {
            guard database.sqliteFile == nil else {
                throw RederiveError(.invalidArgument, "--max-replica-lag reads a PostgreSQL server's standbys, and \(database.databaseName) has none")
            }
            _ = try await store.replicaLag()
            throttles.append(.replicaLag(above: .milliseconds(Int64(maxReplicaLag * 1000)), on: store))
        }
        return throttles
    }
}
