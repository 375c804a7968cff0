import GRDB
import Rederive
import Synchronization

/// Noticing other programs' commits, for a watcher: `PRAGMA data_version`, asked on the store's writer
/// connection. The number changes whenever another connection (the app's, another process's) commits
/// to the file, and not when the connection it is asked on commits: the store's own commits and lease
/// renewals, which go through that connection, never wake a watcher for nothing. Asking reads the
/// shared memory index, not the database, and takes no lock, so it can be asked every few milliseconds.
///
/// A store opened on the app's own pool (``init(_:replacedValuesRunLimit:)``) shares that writer with
/// the app: the app's writes through that pool are then noticed by the watcher's regular poll only.
extension SQLiteStore: ChangeSignaling {
    /// The longest wait between two looks at `PRAGMA data_version` once nothing has changed for a
    /// while: an idle watcher asks ten times a second rather than a hundred, and the first change
    /// after a quiet spell waits this long at most; the next looks are `interval` apart again.
    public static let idleSignalInterval: Duration = .milliseconds(100)

    /// Yields when `PRAGMA data_version`, asked on the writer connection, changes: every `interval`
    /// after a change, then, while nothing changes, at intervals that double up to
    /// ``idleSignalInterval`` (within a quarter of a second of quiet).
    public func changeSignals(checkingEvery interval: Duration) -> AsyncStream<Void> {
        let database = self.database
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let task = Task {
            var seen: Int?
            var failed = false
            var wait = interval
            while !Task.isCancelled {
                var changed = false
                do {
                    let version = try await offload {
                        try database.writeWithoutTransaction { try Int.fetchOne($0.cachedStatement(sql: "PRAGMA data_version")) }
                    }
                    changed = seen.map { $0 != version } ?? failed
                    if changed {
                        continuation.yield()
                    }
                    failed = false
                    seen = version
                } catch {
                    // The file cannot be read now: say "look" once it can, since a change may be missed.
                    seen = nil
                    failed = true
                }
                wait = changed ? interval : min(wait * 2, max(interval, Self.idleSignalInterval))
                try? await Task.sleep(for: wait)
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// The highest id in `rederive_records` of the pipeline's table, from the primary key's last entry.
    public func lastRecordID(of pipeline: Pipeline) async throws -> Int64? {
        try await read { db in
            try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT max(record_id) FROM rederive_records WHERE source = ?"), arguments: [pipeline.table]
            )
        }
    }

    /// Forgets where the lease's claims of the plan reached, and the shape of the query they used:
    /// the next claim counts again and looks from the first record.
    public func restartClaims(_ plan: RunPlan, lease: WorkerLease) {
        let key = ClaimCursorKey(token: lease.token, pipeline: plan.pipeline.name, lane: plan.lane)
        _ = claimCursors.withLock { $0.removeValue(forKey: key) }
        _ = claimShapes.withLock { $0.removeValue(forKey: key) }
    }

    /// The records whose current stamp is of another version than the processor's, for the plan's
    /// processor that has most: two ranges of the stamps' version index per processor, which skip the
    /// stamps at the processor's version.
    public func backlogCount(_ plan: RunPlan) async throws -> Int? {
        try await read { db in
            try plan.selection.map { index in
                let processor = plan.pipeline.processors[index]
                return try Int.fetchOne(
                    db.cachedStatement(sql: """
                        SELECT (SELECT count(*) FROM rederive_stamps WHERE pipeline = ?1 AND processor = ?2 AND version < ?3 AND current = 1)
                             + (SELECT count(*) FROM rederive_stamps WHERE pipeline = ?1 AND processor = ?2 AND version > ?3 AND current = 1)
                        """),
                    arguments: [plan.pipeline.name, processor.name, processor.version]
                ) ?? 0
            }.max() ?? 0
        }
    }

    /// Records the watcher's run with the watcher's count: this store's own count of a plan whose
    /// processors are behind for different records probes every record (``staleCount(_:)``), 0.2 s
    /// and more for 20,000 records, at the start of each of a watcher's runs.
    public func startWatchRun(_ plans: [RunPlan], lease: WorkerLease, pending: [Int]) async throws -> StartedRun {
        StartedRun(id: try await recordRun(processors: RunPlan.processorVersions(of: plans), lease: lease), pending: pending)
    }
}
