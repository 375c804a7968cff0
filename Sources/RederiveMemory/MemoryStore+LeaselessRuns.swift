import Foundation
import Rederive
import Synchronization

/// The run lifecycle without a lease, which `RecordStore` still requires beside the lease-aware one.
extension MemoryStore {
    /// Records a new run, after recording as interrupted the runs that no live lease derives.
    public func startRun(processors: [ProcessorVersion]) async throws -> Int64 {
        state.withLock { state in
            let now = Date()
            Self.interruptOrphanedRuns(&state, now: now)
            return Self.insertRun(processors, now: now, replacedValuesRunLimit: replacedValuesRunLimit, &state)
        }
    }

    /// Ends a run at once with `status`; its counts are what its commits added up to.
    public func finishRun(_ runID: Int64, status: RunStatus, counts: RunCounts) async throws {
        state.withLock { state in
            guard let index = state.runIndex(runID) else { return }
            state.runs[index].status = status
            state.runs[index].endedAt = Date()
        }
    }
}
