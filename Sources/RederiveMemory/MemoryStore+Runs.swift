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
                var committed = joined.counts.changed + joined.counts.unchanged + joined.counts.failed
                started = StartedRun(id: joined.id, pending: plans.map { plan in
                    let counted = joined.pending[plan.pipeline.name] ?? 0
                    let done = min(counted, committed)
                    committed -= done
                    return counted - done
                })
            } else {
                let pending = plans.map { state.staleIDs($0, after: nil).count }
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

    /// Attaches the new lease to the run, running again unless it was cancelled.
    public func rejoinRun(_ runID: Int64, lease: WorkerLease) async throws {
        state.withLock { state in
            state.leases[lease.token]?.runID = runID
            guard let index = state.runIndex(runID), state.runs[index].status != .cancelled, state.runs[index].cancelRequestedAt == nil else { return }
            state.runs[index].status = .running
            state.runs[index].endedAt = nil
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

    /// Recorded runs, newest first, at most `limit` of them. A run whose process is gone shows as
    /// interrupted, with what it committed (`OrphanedRun`).
    public func runs(limit: Int?) async throws -> [RunHistoryEntry] {
        state.withLock { state in
            let live = state.runsDerivedByLiveLeases(now: Date())
            return state.runs.reversed().prefix(limit.flatMap { $0 >= 0 ? $0 : nil } ?? .max).map { run in
                let recorded = RunHistoryEntry(
                    id: run.id, startedAt: run.startedAt, endedAt: run.endedAt, status: run.status, processors: run.processors,
                    counts: run.counts
                )
                return OrphanedRun.shown(recorded, derivedByLiveLease: live.contains(run.id)) {
                    (run.counts, state.lastCommit(of: run.id))
                }
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

    /// Forgets what runs replaced, but for the newest `keep` runs that changed values (`RollbackRules`).
    static func pruneReplaced(_ keep: Int, _ state: inout MemoryState) {
        let forgotten = Set(RollbackRules.runsToForget(state.replaced.keys.map(\.runID), keep: keep))
        if !forgotten.isEmpty {
            state.replaced = state.replaced.filter { !forgotten.contains($0.key.runID) }
        }
    }

    /// Records as interrupted every run still `running` whose process is gone (`OrphanedRun`): it
    /// ended when it committed last.
    static func interruptOrphanedRuns(_ state: inout MemoryState, now: Date) {
        let live = state.runsDerivedByLiveLeases(now: now)
        for index in state.runs.indices where OrphanedRun.isOrphaned(state.runs[index].status, derivedByLiveLease: live.contains(state.runs[index].id)) {
            state.runs[index].status = .interrupted
            state.runs[index].endedAt = state.lastCommit(of: state.runs[index].id) ?? state.runs[index].startedAt
        }
    }
}

extension MemoryState {
    /// The runs that a live lease derives (`OrphanedRun/isLive(unexpired:worker:)`).
    func runsDerivedByLiveLeases(now: Date) -> Set<Int64> {
        Set(leases.values.compactMap { lease in
            OrphanedRun.isLive(unexpired: lease.expiresAt > now, worker: lease.worker) ? lease.runID : nil
        })
    }

    /// When run `id` last committed a stamp or a failure; nil when it committed nothing.
    func lastCommit(of id: Int64) -> Date? {
        (stamps.values.filter { $0.runID == id }.map(\.derivedAt) + failures.values.filter { $0.runID == id }.map(\.failedAt)).max()
    }
}
