import Foundation
import GRDB
import Rederive
import RederiveSQL
import Synchronization

/// The store for a single SQLite database file, in WAL mode so that readers, rederive's writer and the
/// app that owns the database work side by side.
///
/// ```swift
/// let store = try SQLiteStore(path: "rooms.sqlite")
/// let summary = try await Runner(store: store, pipelines: [RoomScan.pipeline]).run()
/// ```
///
/// An app that already opened its database with GRDB hands its own `DatabasePool` or `DatabaseQueue`
/// over instead of opening a second connection pool on the same file: ``init(_:replacedValuesRunLimit:)``.
///
/// Opening applies rederive's bookkeeping migrations. ``prepare(_:)`` then creates what a pipeline
/// needs: its table when missing, output columns missing from an existing database (added with their
/// declared defaults), and the triggers that notice every payload change.
///
/// A program that must not change the database opens it with ``openForReading(path:busyTimeout:allowingUnprepared:)``;
/// ``openForWriting(path:pipelines:creating:requiringPrepared:preparingForeign:busyTimeout:replacedValuesRunLimit:)``
/// prepares the bookkeeping and the pipelines all at once, or leaves the file as it was.
public final class SQLiteStore: RecordStore {
    /// How long a statement waits for another connection's write lock before failing.
    public static let defaultBusyTimeout: TimeInterval = 10

    /// The database file's path.
    public let path: String
    /// The connections every read and write goes through: the store's own pool, or the app's.
    let database: any DatabaseWriter
    /// How many of the newest runs that changed values keep the values they replaced, for `rollback`.
    public let replacedValuesRunLimit: Int
    /// Where each lease's claims of each pipeline have reached, by lease token and pipeline name:
    /// claims are handed out in id order, in-process.
    let claimCursors = Mutex<[ClaimCursorKey: Int64]>([:])
    /// Per lease and pipeline, the shape of the pending query its claims use, fixed at the first claim.
    let claimShapes = Mutex<[ClaimCursorKey: PendingShape]>([:])
    /// The file as it was when opened without locks (see ``ReadOnlyDatabase``): a read that finds it
    /// changed fails rather than return what a concurrent checkpoint may have torn.
    let snapshot: ReadOnlyDatabase.FileSnapshot?
    /// Whether the store opened its connections itself, and closes them in ``close()``: not an app's own pool.
    let ownsConnections: Bool
    /// Whether ``close()`` copies the write-ahead log back into the file first: a store that writes.
    let checkpointsOnClose: Bool
    /// Whether ``close()`` ran.
    let closed = Mutex(false)

    /// Opens (or creates) the database at `path`.
    public convenience init(
        path: String,
        busyTimeout: TimeInterval = SQLiteStore.defaultBusyTimeout,
        replacedValuesRunLimit: Int = 20
    ) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.label = "rederive"
        // Every worker of a run reads its claimed payloads on a connection of its own.
        configuration.maximumReaderCount = 16
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw SQLiteProblem.error("open database", path, error)
        }
        try self.init(pool, replacedValuesRunLimit: replacedValuesRunLimit, owned: true)
    }

    /// Works on a database the app already opened: its `DatabasePool` (readers then run beside the
    /// writer) or its `DatabaseQueue` (everything is serialized). The app's configuration, such as its
    /// busy timeout, applies; rederive's bookkeeping migrations are applied here.
    public convenience init(_ database: any DatabaseWriter, replacedValuesRunLimit: Int = 20) throws {
        try self.init(database, replacedValuesRunLimit: replacedValuesRunLimit, owned: false)
    }

    /// A store on `database`, which ``close()`` closes when the store opened it itself (`owned`).
    private init(_ database: any DatabaseWriter, replacedValuesRunLimit: Int, owned: Bool) throws {
        self.path = database.path
        self.database = database
        self.replacedValuesRunLimit = max(0, replacedValuesRunLimit)
        self.snapshot = nil
        self.ownsConnections = owned
        self.checkpointsOnClose = owned
        do {
            try BookkeepingSchema.migrator.migrate(database)
        } catch {
            throw SQLiteProblem.error("prepare database", database.path, error)
        }
    }

    /// A store on connections that apply no migration: read-only ones, as
    /// ``openForReading(path:busyTimeout:allowingUnprepared:)`` makes them, or one for a preview.
    /// `snapshot`, when the file is read without locks, is checked after every read.
    init(unmigrated database: any DatabaseWriter, path: String, snapshot: ReadOnlyDatabase.FileSnapshot?) {
        self.path = path
        self.database = database
        self.replacedValuesRunLimit = 0
        self.snapshot = snapshot
        self.ownsConnections = true
        self.checkpointsOnClose = false
    }

    /// A claim is a cursor step in-process: small claims keep the workers evenly busy.
    public var preferredClaimSize: Int { 32 }

    /// A commit holds the database's one write lock, which the app's own writes wait for (up to their
    /// busy timeout): 50 ms keeps that wait below what a person notices in an app, and still holds
    /// hundreds of records on a quiet database.
    public var preferredBatchDuration: Duration { .milliseconds(50) }

    /// A run or watcher logs an outage of the database (a lock held past the busy timeout, a disk
    /// error) itself: the store logs none.
    public var logsOutages: Bool { false }

    /// Pauses and cancels are kept in the database (`rederive_controls`).
    public var runControl: (any RunControlling)? { self }

    /// Projections are kept in the database.
    public var projectionStore: (any ProjectionStoring)? { self }

    /// Schema migrations are applied in one transaction each.
    public var schemaMigrations: (any SchemaMigrationApplier)? { self }

    /// One process derives a SQLite database at a time: no run is shared.
    public var sharedRuns: (any SharedRunReporting)? { nil }

    /// Changes are seen by `PRAGMA data_version`, asked at an interval.
    public var changeSignaling: (any ChangeSignaling)? { self }

    /// Runs a read on the store's connection pool, for callers inside this package.
    package func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await access("read") { database in try database.read(body) }
    }

    /// Runs a write transaction on the store's connection pool, for callers inside this package.
    package func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await access("write") { database in try database.write(body) }
    }

    /// Runs a commit's write transaction. On the store's own connections its statement journals stay
    /// in memory: a commit's statements are bounded by its batch, and a journal spilled to a temporary
    /// file (past 64 KiB) cost a file created, written and deleted per commit, which made commits
    /// slower and so batches smaller. Other writes, which may touch a whole table, keep SQLite's
    /// default; an app's own connections keep the app's settings.
    package func commitTransaction<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        guard ownsConnections else { return try await write(body) }
        return try await access("write") { database in
            try database.writeWithoutTransaction { db in
                // Read when a transaction begins; no temporary table is open here to be dropped by it.
                try db.execute(sql: "PRAGMA temp_store = MEMORY")
                defer { try? db.execute(sql: "PRAGMA temp_store = DEFAULT") }
                var result: T?
                try db.inTransaction {
                    result = try body(db)
                    return .commit
                }
                return result!
            }
        }
    }

    /// Runs blocking pool work off the cooperative threads; a database error names the file and what
    /// was attempted, and rederive's own errors pass through.
    func access<T: Sendable>(_ verb: String, _ work: @escaping @Sendable (any DatabaseWriter) throws -> T) async throws -> T {
        let database = self.database
        let path = self.path
        let snapshot = self.snapshot
        return try await offload {
            do {
                let result = try work(database)
                try snapshot?.requireUnchanged(path)
                return result
            } catch let error as RederiveError {
                try snapshot?.requireUnchanged(path)
                throw error
            } catch {
                try snapshot?.requireUnchanged(path)
                // A lock held past the busy timeout is transient: the other connection may let go of it soon.
                throw SQLiteProblem.error(verb, path, error)
            }
        }
    }

    /// Creates what is missing for the pipeline (output columns, triggers, keys to adopt) in one
    /// transaction; only reads when nothing is.
    public func prepare(_ pipeline: Pipeline) async throws {
        let schema = PipelineSchema(tables: PipelineTables(pipeline))
        let (changes, unadopted) = try await read { db in
            (try schema.changes(db), try PipelineKeySchema.hasUnadopted(db))
        }
        guard !changes.isEmpty || unadopted else { return }
        try await write { db in
            // Another process may have prepared the database meanwhile: look again inside the transaction.
            try schema.apply(try schema.changes(db), db)
            try PipelineKeySchema.adopt(pipeline.name, table: pipeline.table, db)
        }
    }

    /// Counts each plan's pending records, then records a new run: one process derives a SQLite
    /// database at a time, under its lease, so every run is its own and counted by it.
    public func startRun(_ plans: [RunPlan], lease: WorkerLease) async throws -> StartedRun {
        let pending = try await countStale(plans)
        return StartedRun(id: try await recordRun(processors: RunPlan.processorVersions(of: plans), lease: lease), pending: pending)
    }

    /// Ends the run at once with `status` and `counts`: no other process derives it.
    public func finishRun(_ runID: Int64, status: RunStatus, counts: RunCounts, lease: WorkerLease) async throws {
        let now = Timestamp.text(Date())
        let keep = replacedValuesRunLimit
        try await write { db in
            // The run's own values count now: the window holds exactly the newest runs that changed values.
            try ReplacedValuesSchema.prune(db, keep: keep)
            try db.execute(
                sql: """
                    UPDATE rederive_runs
                    SET ended_at = ?, status = ?, derived = ?, unchanged = ?, failed = ?, skipped = ?
                    WHERE id = ?
                    """,
                arguments: [now, status.rawValue, counts.changed, counts.unchanged, counts.failed, counts.skipped, runID]
            )
            try db.execute(
                sql: "UPDATE rederive_leases SET run_id = NULL WHERE name = ? AND token = ? AND run_id = ?",
                arguments: [WorkerLeaseSchema.runnerLease, lease.token, runID]
            )
        }
    }

    /// Attaches the new lease to the run, running again unless it was cancelled: no other process
    /// derived meanwhile, or the lease would be that process's.
    public func rejoinRun(_ runID: Int64, lease: WorkerLease) async throws {
        try await write { db in
            try db.execute(
                sql: "UPDATE rederive_leases SET run_id = ? WHERE name = ? AND token = ?",
                arguments: [runID, WorkerLeaseSchema.runnerLease, lease.token]
            )
            try db.execute(
                sql: """
                    UPDATE rederive_runs SET status = ?, ended_at = NULL
                    WHERE id = ? AND status <> ? AND cancel_requested_at IS NULL
                    """,
                arguments: [RunStatus.running.rawValue, runID, RunStatus.cancelled.rawValue]
            )
        }
    }

    /// Records a new run and returns its id. The caller holds the lease, so a run still recorded as
    /// running lost its process: it is recorded as interrupted first (`OrphanedRuns`).
    func recordRun(processors: [ProcessorVersion], lease: WorkerLease) async throws -> Int64 {
        let processorsJSON = String(decoding: try JSONEncoder().encode(processors), as: UTF8.self)
        let now = Timestamp.text(Date())
        let keep = replacedValuesRunLimit
        return try await write { db in
            // The caller holds the lease: a run still recorded as running lost its process.
            try OrphanedRuns.interrupt(db, holding: lease.token)
            try db.execute(
                sql: "INSERT INTO rederive_runs (started_at, status, processors) VALUES (?, ?, ?)",
                arguments: [now, RunStatus.running.rawValue, processorsJSON]
            )
            let runID = db.lastInsertedRowID
            try db.execute(
                sql: "UPDATE rederive_leases SET run_id = ? WHERE name = ? AND token = ?",
                arguments: [runID, WorkerLeaseSchema.runnerLease, lease.token]
            )
            try ReplacedValuesSchema.prune(db, keep: keep)
            return runID
        }
    }

    /// The recorded runs, newest first. A run whose process is gone shows as interrupted, with what it
    /// committed (`OrphanedRun`); nothing is written.
    public func runs(limit: Int?) async throws -> [RunHistoryEntry] {
        try await read { db in
            let rows = try Row.fetchAll(
                db,
                sql: "SELECT * FROM rederive_runs ORDER BY id DESC LIMIT ?",
                arguments: [limit ?? -1]
            )
            let live = try OrphanedRuns.runsDerivedByLiveLeases(db)
            return try rows.map { row in
                let processorsJSON: String = row["processors"]
                let processors = (try? JSONDecoder().decode([ProcessorVersion].self, from: Data(processorsJSON.utf8))) ?? []
                let startedAt: String = row["started_at"]
                let endedAt: String? = row["ended_at"]
                let status: String = row["status"]
                let recorded = RunHistoryEntry(
                    id: row["id"],
                    startedAt: Timestamp.date(startedAt) ?? Date(timeIntervalSince1970: 0),
                    endedAt: endedAt.flatMap(Timestamp.date),
                    status: RunStatus(rawValue: status) ?? .failed,
                    processors: processors,
                    counts: RunCounts(changed: row["derived"], unchanged: row["unchanged"], failed: row["failed"], skipped: row["skipped"])
                )
                return try OrphanedRun.shown(recorded, derivedByLiveLease: live.contains(recorded.id)) {
                    let (counts, lastCommit) = try OrphanedRuns.committed(recorded.id, db)
                    return (counts, Timestamp.date(lastCommit))
                }
            }
        }
    }
}
