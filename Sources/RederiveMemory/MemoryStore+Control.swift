import Foundation
import Rederive
import Synchronization

/// Pauses and cancels, kept as the SQL stores keep them: every runner on the store reads them once
/// per heartbeat.
extension MemoryStore: RunControlling {
    /// Records a pause of `scope`; false when it was paused already.
    public func pause(_ scope: ControlScope, by worker: WorkerIdentity) async throws -> Bool {
        state.withLock { state in
            guard !state.pauses.contains(where: { $0.scope == scope }) else { return false }
            state.pauses.append(RunControls.Pause(scope: scope, requestedAt: Date(), requestedBy: worker.description))
            return true
        }
    }

    /// Lifts the pauses `scope` contains; returns them.
    public func resume(_ scope: ControlScope) async throws -> [ControlScope] {
        state.withLock { state in
            let lifted = state.pauses.map(\.scope).filter(scope.contains)
            state.pauses.removeAll { scope.contains($0.scope) }
            return lifted
        }
    }

    /// Marks the runs in progress that `scope` covers as cancelled; returns their ids.
    public func cancel(_ scope: ControlScope) async throws -> [Int64] {
        state.withLock { state in
            let now = Date()
            var cancelled: [Int64] = []
            for index in state.runs.indices where state.runs[index].status == .running && scope.covers(processors: state.runs[index].processors) {
                state.runs[index].cancelRequestedAt = state.runs[index].cancelRequestedAt ?? now
                cancelled.append(state.runs[index].id)
            }
            return cancelled
        }
    }

    /// The pauses, and the runs in progress asked to cancel.
    public func controls() async throws -> RunControls {
        state.withLock { state in
            RunControls(
                pauses: state.pauses,
                cancelledRuns: Set(state.runs.filter { $0.status == .running && $0.cancelRequestedAt != nil }.map(\.id))
            )
        }
    }

    /// Records what holds the lease's workers, while the lease is held.
    public func reportHold(_ hold: ClaimHold?, lease: WorkerLease) async throws {
        state.withLock { state in
            guard let current = state.leases[lease.token] else { return }
            state.leases[lease.token]?.hold = hold.map { hold in current.hold?.hold == hold ? current.hold! : (hold, Date()) }
        }
    }

    /// The live leases, oldest first, with what holds them.
    public func workerHolds() async throws -> [WorkerHold] {
        state.withLock { state in
            let now = Date()
            return state.leases.values
                .filter { $0.expiresAt >= now && !$0.worker.hasEndedOnThisHost }
                .sorted { $0.acquiredAt < $1.acquiredAt }
                .map { WorkerHold(worker: $0.worker, runID: $0.runID, hold: $0.hold?.hold, since: $0.hold?.since) }
        }
    }
}
