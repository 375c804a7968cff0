import Synchronization

/// Whether a process's workers may claim now: the one check between a worker and its next claim,
/// closed while a stored pause or a throttle holds their work, and telling the workers of a cancelled
/// run to end. ``RunControl`` keeps it up to date; ``ClaimingWorker`` asks it before every claim.
///
/// A worker held here has given its turn to claim back, so every worker of a held pass comes to
/// wait here once it has derived what was claimed; the gate knows the passes' shared work, and so
/// when everything claimed is committed (``settledHold``), which is when the process reports itself
/// held.
package final class ClaimGate: Sendable {
    /// What a worker does after asking the gate.
    package enum Passage: Sendable, Equatable {
        /// Claim.
        case proceed
        /// The run was cancelled: claim nothing more and end.
        case cancelled
        /// The task was cancelled while it waited.
        case stopped
    }

    private struct State {
        var controls = RunControls()
        /// Why each throttle holds, by its name; absent while it is clear.
        var throttles: [String: String] = [:]
        /// Workers waiting for the gate to change, by a number of their own.
        var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
        /// The holds of the workers waiting now, with how many wait for each.
        var parked: [ClaimHold: Int] = [:]
        /// The shared work of the passes whose workers run now, with how many of their workers do.
        var passes: [ObjectIdentifier: (work: SynchronizedWork, workers: Int)] = [:]
    }

    private let state = Mutex(State())

    /// An open gate.
    package init() {}

    /// What the gate says to a worker of `plan` in run `runID` (none for a watcher between runs):
    /// nil to claim, else what holds it; a cancelled run is never held.
    private static func hold(_ state: State, plan: RunPlan, runID: Int64?) -> ClaimHold? {
        if state.controls.pause(holding: plan) != nil { return .paused }
        guard let (name, reason) = state.throttles.min(by: { $0.key < $1.key }) else { return nil }
        return .throttled("\(name): \(reason)")
    }

    /// Whether run `runID` was cancelled.
    package func isCancelled(_ runID: Int64) -> Bool {
        state.withLock { $0.controls.cancelledRuns.contains(runID) }
    }

    /// What holds a worker of `plan` in run `runID` now, if anything.
    package func hold(plan: RunPlan, runID: Int64?) -> ClaimHold? {
        state.withLock { Self.hold($0, plan: plan, runID: runID) }
    }

    /// Waits while the work of `plan` in run `runID` is held; says whether to claim, end the cancelled
    /// run, or stop because the task was cancelled.
    package func pass(plan: RunPlan, runID: Int64?) async -> Passage {
        while true {
            if Task.isCancelled { return .stopped }
            let waiter: (id: Int, hold: ClaimHold)? = state.withLock { state in
                if let runID, state.controls.cancelledRuns.contains(runID) { return nil }
                guard let hold = Self.hold(state, plan: plan, runID: runID) else { return nil }
                defer { state.nextWaiter += 1 }
                state.parked[hold, default: 0] += 1
                return (state.nextWaiter, hold)
            }
            guard let waiter else {
                return runID.map(isCancelled) == true ? .cancelled : .proceed
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = state.withLock { state in
                        if Task.isCancelled { return true }
                        state.waiting[waiter.id] = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            } onCancel: {
                state.withLock { $0.waiting.removeValue(forKey: waiter.id) }?.resume()
            }
            state.withLock { state in
                state.parked[waiter.hold, default: 1] -= 1
                if state.parked[waiter.hold] == 0 { state.parked[waiter.hold] = nil }
            }
        }
    }

    /// Takes in the controls read from the store; wakes the waiting workers when they changed.
    package func update(_ controls: RunControls) {
        change { state in
            guard state.controls != controls else { return false }
            state.controls = controls
            return true
        }
    }

    /// Notes that throttle `name` holds for `reason`, or is clear (nil); wakes the waiting workers
    /// when that changed.
    package func throttle(_ name: String, holds reason: String?) {
        change { state in
            guard state.throttles[name] != reason else { return false }
            state.throttles[name] = reason
            return true
        }
    }

    private func change(_ body: (inout State) -> Bool) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard body(&state) else { return [] }
            defer { state.waiting.removeAll() }
            return Array(state.waiting.values)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Notes that a worker of the pass sharing `work` started; ``leave(_:)`` when it ends.
    package func enter(_ work: SynchronizedWork) {
        state.withLock { state in
            state.passes[ObjectIdentifier(work), default: (work, 0)].workers += 1
        }
    }

    /// Notes that a worker of the pass sharing `work` ended.
    package func leave(_ work: SynchronizedWork) {
        state.withLock { state in
            let key = ObjectIdentifier(work)
            state.passes[key]?.workers -= 1
            if state.passes[key]?.workers == 0 { state.passes[key] = nil }
        }
    }

    /// What holds this process's workers, once they wait at the gate and everything they claimed
    /// is committed; nil while any still claims, derives or commits, or while none is held.
    package var settledHold: ClaimHold? {
        let (parked, passes) = state.withLock { ($0.parked, $0.passes.values.map(\.work)) }
        guard !parked.isEmpty, passes.allSatisfy(\.isSettled) else { return nil }
        return parked[.paused] != nil ? .paused : parked.keys.min { $0.description < $1.description }
    }
}
