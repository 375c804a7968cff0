/// Pausing, resuming and cancelling work from any process, on any host: the requests are kept in the
/// database, and every worker (`rederive run`, `rederive watch`, a ``Runner`` in an app) reads them
/// once per heartbeat of its lease.
///
/// A worker under a pause stops claiming, derives and commits what it had claimed, keeps its lease
/// (so its run stays open and goes on with its counts when resumed) and reports itself held
/// (``reportHold(_:lease:)``). A worker of a cancelled run does the same, then ends the run as
/// ``RunStatus/cancelled``.
public protocol RunControlling: Sendable {
    /// Records a pause of `scope`, asked for by `worker`. Returns false when that scope was paused already.
    func pause(_ scope: ControlScope, by worker: WorkerIdentity) async throws -> Bool

    /// Lifts the pauses that `scope` contains (``ControlScope/contains(_:)``): a pipeline's scope
    /// lifts the pipeline's pause and those of each of its processors. Returns the scopes lifted.
    func resume(_ scope: ControlScope) async throws -> [ControlScope]

    /// Asks every run in progress that `scope` covers (``ControlScope/covers(processors:)``) to end as
    /// cancelled. Returns their ids, oldest first; none when no such run is in progress.
    func cancel(_ scope: ControlScope) async throws -> [Int64]

    /// The pauses in force and the cancelled runs still in progress: what workers read each heartbeat.
    func controls() async throws -> RunControls

    /// Records what holds `lease`'s workers now, or that nothing does (nil), for ``workerHolds()``.
    func reportHold(_ hold: ClaimHold?, lease: WorkerLease) async throws

    /// Every live worker, with the run it derives and what holds it, as it reported it.
    func workerHolds() async throws -> [WorkerHold]
}
