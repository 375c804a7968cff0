import Foundation

/// A run recorded as running whose process is gone: killed or cut off, it never came to
/// ``RecordStore/finishRun(_:status:counts:lease:)``, and no live lease derives it any more.
///
/// The one rule every store applies, so that they all agree. Where a store reads runs back
/// (``StoreReporting/runs(limit:)``, which `status` and `history` show), such a run is shown
/// ``RunStatus/interrupted`` at once, with what it committed, without writing anything: read-only
/// commands stay read-only. Where a later run starts (``RecordStore/startRun(_:lease:)``), the store
/// records it so. A store reads the run's row and its leases; this decides.
public enum OrphanedRun {
    /// Whether a lease still stands for its process: its process, when of this host, still runs
    /// (``WorkerIdentity/hasEndedOnThisHost``), even past the lease's expiry, since a loaded machine
    /// renews late and nobody has taken the lease over while it is still held; a process of another
    /// host stands while its lease has not expired.
    public static func isLive(unexpired: Bool, worker: WorkerIdentity) -> Bool {
        if worker.host == WorkerIdentity.thisHost, worker.processID > 0 { return !worker.hasEndedOnThisHost }
        return unexpired
    }

    /// Whether a run recorded with `status` lost its process: it is still recorded as running, and no
    /// live lease (``isLive(unexpired:worker:)``) derives it.
    public static func isOrphaned(_ status: RunStatus, derivedByLiveLease: Bool) -> Bool {
        status == .running && !derivedByLiveLease
    }

    /// The run as it is shown: one that lost its process as interrupted, ended when it committed last
    /// (when it started, if it committed nothing), with the counts of what it committed; any other run
    /// as recorded. `committed` reads what a run committed, and is called only for a run that lost its
    /// process.
    public static func shown(
        _ run: RunHistoryEntry, derivedByLiveLease: Bool, committed: () throws -> (counts: RunCounts, lastCommit: Date?)
    ) rethrows -> RunHistoryEntry {
        guard isOrphaned(run.status, derivedByLiveLease: derivedByLiveLease) else { return run }
        let (counts, lastCommit) = try committed()
        return RunHistoryEntry(
            id: run.id, startedAt: run.startedAt, endedAt: lastCommit ?? run.startedAt, status: .interrupted,
            processors: run.processors, counts: counts
        )
    }
}
