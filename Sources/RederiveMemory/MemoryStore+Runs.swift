import Foundation
import Rederive
import Synchronization

/// Recorded runs: one per job, shared by the runners that derive it at once; its counts are what
/// their commits added up to.
extension MemoryStore {
    /// Joins the run that another live lease derives with the same processors, taking what is left
    /// of its count, or records a new run and counts its plans. Runs still `running` whose leases
    /// are all gone (their processes were killed or cut off and never finished) are recorded as
    /// interrupted first, with what they committed.
    public func startRun(_ plans: [RunPlan], lease: WorkerLease) async throws -> StartedRun {
        let processors = RunPlan.processorVersions(of: plans)
        return state.withLock { state in
            let now = Date()
            Self.interruptOrphanedRuns(&state, now: now)
            let joined = state.runs.last { run in
                run.status == .running && run.processors == processors && run.cancelRequestedAt == nil
                    && state.leases.contains { $0.key != lease.token && $0.value.runID == run.id && $0.value.expiresAt > now }
            }
            let started: StartedRun
            if let joined {
                // Commits count against the first plans first, as workers take the plans in order.
                var committed = joined.counts.derived + joined.counts.unchanged + joined.counts.failed
                started = StartedRun(id: joined.id, pending: plans.map { plan in
                    let counted = joined.pending[plan.pipeline.name] ?? 0
                    let done = min(counted, committed)
                    committed -= done
                    return counted - done
                })
            } else {
                let pending = plans.map { state.pendingIDs($0, after: nil).count }
                let id = Self.insertRun(processors, now: now, replacedValuesRunLimit: replacedValuesRunLimit, &state)
                if let index = state.runIndex(id) {
                    state.runs[index].pending = Dictionary(zip(plans.map(\.pipeline.name), pending), uniquingKeysWith: +)
                }
                started = StartedRun(id: id, pending: pending)
            }
            state.leases[lease.token]?.runID = started.id
            return started
        }
    }

    /// Leaves the run; the last live lease to leave it ends it with `status`. Its counts are what its
    /// commits added up to, which is what every runner's `counts` sum to.
    public func finishRun(_ runID: Int64, status: RunStatus, counts: RunCounts, lease: WorkerLease) async throws {
        state.withLock { state in
            let now = Date()
            if state.leases[lease.token]?.runID == runID {
                state.leases[lease.token]?.runID = nil
            }
            let others = state.leases.contains { $0.value.runID == runID && $0.value.expiresAt > now }
            guard !others, let index = state.runIndex(runID) else { return }
            state.runs[index].status = status
            state.runs[index].endedAt = now
            // The run's own values count now: the window holds exactly the newest runs that changed values.
            Self.pruneReplaced(replacedValuesRunLimit, &state)
        }
    }

    /// Recorded runs, newest first, at most `limit` of them.
    public func runs(limit: Int?) async throws -> [RunHistoryEntry] {
        state.withLock { state in
            state.runs.reversed().prefix(limit.flatMap { $0 >= 0 ? $0 : nil } ?? .max).map { run in
                RunHistoryEntry(
                    id: run.id, startedAt: run.startedAt, endedAt: run.endedAt, status: run.status, processors: run.processors,
                    counts: run.counts
                )
            }
        }
    }

    /// Records a new run and returns its id; only the newest runs keep what they replaced.
    static func insertRun(_ processors: [ProcessorVersion], now: Date, replacedValuesRunLimit: Int, _ state: inout MemoryState) -> Int64 {
        let id = (state.runs.last?.id ?? 0) + 1
        state.runs.append(MemoryRun(id: id, startedAt: now, status: .running, processors: processors))
        pruneReplaced(replacedValuesRunLimit, &state)
        return id
    }

    /// Forgets what runs replaced, but for the newest `keep` runs that changed values (``RollbackRules``).
    static func pruneReplaced(_ keep: Int, _ state: inout MemoryState) {
        let forgotten = Set(RollbackRules.runsToForget(state.replaced.keys.map(\.runID), keep: keep))
        if !forgotten.isEmpty {
            state.replaced = state.replaced.filter { !forgotten.contains($0.key.runID) }
        }
    }

    /// Records as interrupted every run still `running` that no unexpired lease derives: it ended
    /// when it committed last.
    static func interruptOrphanedRuns(_ state: inout MemoryState, now: Date) {
        for index in state.runs.indices where state.runs[index].status == .running {
            let id = state.runs[index].id
            guard !state.leases.contains(where: { $0.value.runID == id && $0.value.expiresAt > now }) else { continue }
            let lastCommit = (state.stamps.values.filter { $0.runID == id }.map(\.derivedAt)
                + state.failures.values.filter { $0.runID == id }.map(\.failedAt)).max()
            state.runs[index].status = .interrupted
            state.runs[index].endedAt = lastCommit ?? state.runs[index].startedAt
        }
    }
}
