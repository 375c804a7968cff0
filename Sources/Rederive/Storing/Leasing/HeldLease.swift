import Synchronization

/// The lease a run holds now: the one it started with, or a new one it took after that one was lost.
///
/// A process cut off from the database past its lease's expiry loses the lease and its claims to the
/// others. When it is back, its late commits are rejected (counted as skipped) and its next claim
/// finds the lease lost; it then takes a new lease, when the store gives one, and goes on deriving
/// what is still stale, as a process started then would.
///
/// Every claim and commit reads the current lease: it is read under a lock, without a hop to another
/// executor.
final class HeldLease: Sendable {
    private struct State {
        var current: WorkerLease
        var all: [WorkerLease]
        var replacing: Task<WorkerLease?, any Error>?
        var runID: Int64?
    }

    private let state: Mutex<State>

    init(_ lease: WorkerLease) {
        state = Mutex(State(current: lease, all: [lease]))
    }

    /// The lease to claim and commit with now.
    var current: WorkerLease { state.withLock { $0.current } }

    /// Every lease the run held, to release at its end.
    var all: [WorkerLease] { state.withLock { $0.all } }

    /// The run the lease derives, once recorded: a new lease rejoins it.
    var runID: Int64? { state.withLock { $0.runID } }

    /// Notes the run the lease derives.
    func derive(run runID: Int64?) {
        state.withLock { $0.runID = runID }
    }

    /// The lease to claim with after `lost` was found lost: a new one, taken once however many
    /// workers ask; nil when the store's lease is another process's now.
    func replace(_ lost: WorkerLease, acquire: @escaping @Sendable () async throws -> LeaseAcquisition) async throws -> WorkerLease? {
        enum Step {
            case replaced(WorkerLease)
            case waiting(Task<WorkerLease?, any Error>)
            case started(Task<WorkerLease?, any Error>)
        }
        let step = state.withLock { state -> Step in
            if state.current.token != lost.token { return .replaced(state.current) }
            if let replacing = state.replacing { return .waiting(replacing) }
            let task = Task<WorkerLease?, any Error> {
                guard case .acquired(let fresh) = try await acquire() else { return nil }
                return fresh
            }
            state.replacing = task
            return .started(task)
        }
        switch step {
        case .replaced(let lease):
            return lease
        case .waiting(let task):
            return try await task.value
        case .started(let task):
            let outcome = await task.result
            state.withLock { state in
                state.replacing = nil
                if case .success(let fresh?) = outcome {
                    state.current = fresh
                    state.all.append(fresh)
                }
            }
            return try outcome.get()
        }
    }
}
