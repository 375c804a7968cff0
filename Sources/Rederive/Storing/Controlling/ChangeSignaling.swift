/// What a store tells a process that derives records continuously (`rederive watch`): when records may
/// have become stale, and how to claim from the first record again.
///
/// A signal means "look again", never "this record changed": it may come when nothing a pipeline
/// reads changed (the watcher's own commits, a lease renewed), and the watcher then finds nothing
/// pending. A signal may also be lost (a dropped connection); the watcher looks again at a bounded
/// interval regardless.
public protocol ChangeSignaling: Sendable {
    /// Yields once each time the store notices that a change was committed, by any connection or
    /// process, after the stream was made. Where the store must ask (SQLite's `PRAGMA data_version`),
    /// it asks every `interval`; where it is told (PostgreSQL's `LISTEN`), it yields as it is told.
    /// Signals that arrive faster than they are read are merged into one. The stream ends when its
    /// reader stops iterating it, and releases what it held (a connection) then.
    func changeSignals(checkingEvery interval: Duration) -> AsyncStream<Void>

    /// Forgets where `lease`'s claims of `plan` reached, so that the next claim looks again from the
    /// first record, for records that became stale behind it. The caller calls it only when every
    /// record it claimed of the plan is committed or given up: a store that hands claims out
    /// in-process (SQLite) would otherwise hand them out again. A store whose claims look from the
    /// start by themselves once they reach the end does nothing.
    func restartClaims(_ plan: RunPlan, lease: WorkerLease)

    /// Makes `lease`'s next claims of `plan`, a lane of fresh records (``StaleLane/fresh``), look
    /// again at the records behind where they reached, skipping those that the store's counts show
    /// not fresh: a watcher's sweep for payloads replaced and records invalidated behind its claims.
    /// Records handed out and not committed yet count as fresh; `lowestInFlight` is the lowest of
    /// their ids, if any. A store that cannot count cheaply where fresh records are looks from the
    /// first record again (``restartClaims(_:lease:)``).
    func sweepFreshClaims(_ plan: RunPlan, lease: WorkerLease, lowestInFlight: Int64?) async throws

    /// How many records of `plan` are in its backlog lane (``StaleLane/backlog``: values current, but
    /// of another version of a processor), the most that any one of its processors has; read from the
    /// store's counts or indexes, never a pass over the records. A watcher that finds records stale and
    /// none of them in the backlog leaves them to its fresh lane rather than pass over every record.
    /// Nil where the store cannot count them so: the watcher then passes over the plan.
    func backlogCount(_ plan: RunPlan) async throws -> Int?

    /// The highest id among `pipeline`'s records, nil when it has none; read from an index, never a
    /// pass over the records. A watcher that finds a backlog of fresh records (a table never derived,
    /// or invalidated whole) drains the records up to this id, and claims those written since, after
    /// it, ahead of them.
    func lastRecordID(of pipeline: Pipeline) async throws -> Int64?

    /// Records a watcher's run as ``RecordStore/startRun(_:lease:)`` does, taking `pending` (per plan,
    /// what the watcher found stale) for its count of pending records where the store's own count would
    /// cost a pass over the table: a watcher starts a run at each busy period, and needs no exact count.
    /// A store whose count is cheap, or that shares runs between processes by their counts, counts as
    /// `startRun` does.
    func startWatchRun(_ plans: [RunPlan], lease: WorkerLease, pending: [Int]) async throws -> StartedRun
}
