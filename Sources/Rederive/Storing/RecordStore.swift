/// Where records, their payloads, derived values, stamps, failures and runs are kept.
///
/// The runner sees the database only through this interface. A run takes a ``WorkerLease``; its
/// workers each claim batches of stale records with ``claim(_:limit:byteLimit:lease:)`` and read their
/// payloads on their own; one writer commits results fenced by the lease. A store decides how claims
/// are handed out: the SQLite store hands them out in-process and lets one process derive at a time,
/// a store shared by many hosts claims batches in the database with leases that expire.
///
/// What reports and administration read and change is ``StoreReporting``, apart from what a runner needs.
public protocol RecordStore: Sendable {
    /// Makes the database ready for a pipeline: bookkeeping, missing output columns (added with their
    /// defaults), change tracking. Cheap when nothing is missing.
    func prepare(_ pipeline: Pipeline) async throws

    /// Records the run that `lease`'s process derives with `plans`, and how many records each plan has
    /// pending: the one lifecycle of a run, from this call to ``finishRun(_:status:counts:lease:)``.
    ///
    /// A run still recorded as running whose process is gone (it was killed and never finished) is
    /// recorded as interrupted first, with what it committed. A store one process derives at a time
    /// records a new run, after counting each plan (``countStale(_:)`` does that). On a store many
    /// processes derive at once, the process joins the run others derive with the same processors, and
    /// the run is counted once, by the process that starts it: a worker joining it takes what is left
    /// of that count instead of counting again.
    func startRun(_ plans: [RunPlan], lease: WorkerLease) async throws -> StartedRun

    /// Records that `lease`'s process is done with a run. The run ends with `status` and `counts` when
    /// no other live process derives it: at once on a store one process derives at a time; on a shared
    /// store, when the last of its processes leaves it.
    func finishRun(_ runID: Int64, status: RunStatus, counts: RunCounts, lease: WorkerLease) async throws

    /// Attaches `lease`, taken after the process lost the lease it started run `runID` with (cut off
    /// past its expiry), to that run: the process rejoins the run it derives rather than leave it
    /// looking abandoned, so that another process starting then joins it too, and the run ends when
    /// the last of its processes leaves it. A run recorded as over meanwhile for want of a live
    /// process is running again; a cancelled run stays cancelled.
    func rejoinRun(_ runID: Int64, lease: WorkerLease) async throws

    /// How many records are stale for the plan: how many it would derive.
    func staleCount(_ plan: RunPlan) async throws -> Int

    /// Up to `limit` stale records with ids greater than `cursor`, in id order, with their payloads,
    /// without claiming them: for previews that write nothing.
    /// The batch ends early once its payloads hold `byteLimit` bytes; it always holds at least one record.
    func staleRecords(_ plan: RunPlan, after cursor: Int64?, limit: Int, byteLimit: Int) async throws -> [PendingRecord]

    /// Takes the right to derive this store's records for `worker`, or says who holds it when only one
    /// process may derive at a time. The lease lasts `duration` unless renewed.
    func acquireLease(for worker: WorkerIdentity, duration: Duration) async throws -> LeaseAcquisition

    /// Extends a lease by its duration; throws ``RederiveError/Code/leaseLost`` when it already expired
    /// and was taken over.
    func renewLease(_ lease: WorkerLease) async throws

    /// Gives the lease and any claims under it back, so that others need not wait for it to expire.
    func releaseLease(_ lease: WorkerLease) async throws

    /// How many records a worker claims at a time unless the run says otherwise: few where a claim is
    /// cheap (32 in-process), so that the workers stay evenly busy; more where each claim is a
    /// transaction on a server.
    var preferredClaimSize: Int { get }

    /// How long a commit should take unless the run says otherwise: a run sizes its batches toward it
    /// (``Runner/Configuration/targetBatchDuration``). Short where a commit holds a lock that the app's
    /// own writes wait for; longer where each commit is a round trip to a server, whose fixed cost a
    /// larger batch spreads over more records.
    var preferredBatchDuration: Duration { get }

    /// Whether the store logs an outage of its database itself, once when it begins and once when it
    /// ends (PostgreSQL's does, from its connection pool): a run or a watcher then reports the outage
    /// in its health and metrics only, so that it is not logged twice.
    var logsOutages: Bool { get }

    // What a store offers beyond a run, each answered by every store: itself where it offers it, nil
    // where it does not. A command asks these, never casts the store.

    /// Pauses and cancels stored for other processes to see (`rederive pause`, `cancel`); nil where
    /// the store keeps none, and a run is then held by its throttles alone.
    var runControl: (any RunControlling)? { get }

    /// Projections kept beside the payloads (`rederive projections`, `verify --projections`); nil where
    /// the store keeps none.
    var projectionStore: (any ProjectionStoring)? { get }

    /// Schema migrations applied to the app's database (`rederive migrate`); nil where the store
    /// applies none.
    var schemaMigrations: (any SchemaMigrationApplier)? { get }

    /// Runs shared by the processes that derive the same database, with each one's share
    /// (`status`, `run --progress json`); nil where each process records runs of its own.
    var sharedRuns: (any SharedRunReporting)? { get }

    /// Signals of committed changes, for a process that derives continuously (`rederive watch`); nil
    /// where the store gives none, and such a store cannot be watched.
    var changeSignaling: (any ChangeSignaling)? { get }

    /// Makes what was committed durable outside any log of the store's own, where it can, and closes
    /// the connections the store opened: a SQLite file whose write-ahead log is copied back into the
    /// file, a server's connections closed. Nothing can be done with the store afterwards; closing
    /// twice does nothing, and a store with nothing to close does nothing. The command line closes
    /// every store it opened before it exits, after an error or a signal too.
    func close() async

    /// Claims up to `limit` pending records that no one else holds, with their payloads, for one worker
    /// of the lease's process. The batch ends early once its payloads hold `byteLimit` bytes; it holds at
    /// least one record, and none when nothing is left to claim for this run.
    func claim(_ plan: RunPlan, limit: Int, byteLimit: Int, lease: WorkerLease) async throws -> [PendingRecord]

    /// Stores derived values, stamps and failures in one transaction. A result whose record's payload
    /// changed since it was read, or that was deleted, is skipped and the record stays stale. With a
    /// lease, nothing is stored unless the lease is still this process's: a commit after the lease was
    /// lost throws ``RederiveError/Code/leaseLost``. Returns what the commit made of each result.
    func commit(_ results: [RecordResult], plan: RunPlan, runID: Int64, lease: WorkerLease?) async throws -> CommitOutcome
}

extension RecordStore {
    /// How many records each plan would derive, in the order of `plans`: what a store that counts
    /// every run itself returns from ``startRun(_:lease:)``, with the run it records. A helper that a
    /// store calls explicitly, never a requirement's default.
    public func countStale(_ plans: [RunPlan]) async throws -> [Int] {
        var pending: [Int] = []
        for plan in plans {
            pending.append(try await staleCount(plan))
        }
        return pending
    }
}
