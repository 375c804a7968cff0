import Rederive
import Synchronization

/// Noticing changes, for a watcher: the store counts every change that can make records stale, and
/// the stream yields when the count moved since it last looked.
extension MemoryStore: ChangeSignaling {
    /// Yields when a payload was written, records invalidated, a run rolled back or a pipeline reset
    /// since the stream last looked, looking every `interval`.
    public func changeSignals(checkingEvery interval: Duration) -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let task = Task { [self] in
            var seen = state.withLock { $0.revision }
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                let revision = state.withLock { $0.revision }
                if revision != seen {
                    seen = revision
                    continuation.yield()
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// The records whose current stamp is of another version than the processor's, for the plan's
    /// processor that has most.
    public func backlogCount(_ plan: RunPlan) async throws -> Int? {
        state.withLock { state in
            plan.selection.map { index in
                let processor = plan.pipeline.processors[index]
                return state.stamps.count { key, stamp in
                    key.pipeline == plan.pipeline.name && key.processor == processor.name && stamp.current
                        && stamp.version != processor.version
                }
            }.max() ?? 0
        }
    }

    /// The highest id among the pipeline's records.
    public func lastRecordID(of pipeline: Pipeline) async throws -> Int64? {
        state.withLock { $0.tables[pipeline.table]?.records.keys.max() }
    }

    /// Starts the lease's claims of the plan from the first record again, and lets it claim the
    /// records its run committed before: a watcher's run lasts long, and a record it derived may
    /// have become stale again since (invalidated, say).
    public func restartClaims(_ plan: RunPlan, lease: WorkerLease) {
        state.withLock { state in
            state.claimCursors[ClaimKey(token: lease.token, pipeline: plan.pipeline.name, lane: plan.lane)] = nil
            guard let run = state.leases[lease.token]?.runID, var table = state.tables[plan.pipeline.table] else { return }
            for (id, record) in table.records where record.committedRun == run && record.claimedBy == nil {
                table.records[id]?.committedRun = nil
            }
            state.tables[plan.pipeline.table] = table
        }
    }

    /// Looks from the first record again: looking through every record costs what a count here would.
    public func sweepFreshClaims(_ plan: RunPlan, lease: WorkerLease, lowestInFlight: Int64?) async throws {
        restartClaims(plan, lease: lease)
    }

    /// Starts the run as ``startRun(_:lease:)`` does: the store counts what is pending at no cost.
    public func startWatchRun(_ plans: [RunPlan], lease: WorkerLease, pending: [Int]) async throws -> StartedRun {
        try await startRun(plans, lease: lease)
    }
}
