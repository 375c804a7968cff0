import Synchronization

/// Turns a store's change signals into "wait until something changed, or this long at most": the
/// watcher waits here between passes. A signal that arrives during a pass is kept, so the next wait
/// returns at once and no change is missed.
final class ChangeMailbox: Sendable {
    private struct Waiter {
        let id: Int
        /// Resumed with whether a signal ended the wait.
        let continuation: CheckedContinuation<Bool, Never>
        var timeout: Task<Void, Never>?
    }

    private struct State {
        var signalled = false
        var waiter: Waiter?
        var nextID = 0
        var listener: Task<Void, Never>?
    }

    private let state = Mutex(State())

    /// A mailbox that listens to `signals` until ``stop()``.
    static func listening(to signals: AsyncStream<Void>) -> ChangeMailbox {
        let mailbox = ChangeMailbox()
        let listener = Task { [weak mailbox] in
            for await _ in signals {
                mailbox?.signal()
            }
        }
        mailbox.state.withLock { $0.listener = listener }
        return mailbox
    }

    /// Stops listening; the store's stream ends and releases what it held.
    func stop() {
        state.withLock { $0.listener }?.cancel()
    }

    /// Something may have changed: wakes the waiting pass, or keeps the signal for the next wait.
    func signal() {
        let waiter = state.withLock { state -> Waiter? in
            guard let waiter = state.waiter else {
                state.signalled = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.timeout?.cancel()
        waiter?.continuation.resume(returning: true)
    }

    /// Takes the signal that arrived since the last wait or take, without waiting: whether there was one.
    func takeSignal() -> Bool {
        state.withLock { state in
            defer { state.signalled = false }
            return state.signalled
        }
    }

    /// Returns once a signal arrived since the last wait, after `timeout` at most, or when the task is
    /// cancelled; whether a signal ended the wait.
    @discardableResult
    func wait(timeout: Duration) async -> Bool {
        let id: Int? = state.withLock { state in
            if state.signalled {
                state.signalled = false
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return true }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let resumeNow: Bool? = state.withLock { state in
                    if state.signalled || Task.isCancelled {
                        defer { state.signalled = false }
                        return state.signalled
                    }
                    state.waiter = Waiter(id: id, continuation: continuation)
                    return nil
                }
                if let resumeNow {
                    continuation.resume(returning: resumeNow)
                    return
                }
                let timer = Task { [weak self] in
                    guard (try? await Task.sleep(for: timeout)) != nil else { return }
                    self?.wake(id)
                }
                let keep = state.withLock { state in
                    guard state.waiter?.id == id else { return false }
                    state.waiter?.timeout = timer
                    return true
                }
                if !keep { timer.cancel() }
            }
        } onCancel: {
            wake(id)
        }
    }

    /// Ends wait `id`, if it still waits.
    private func wake(_ id: Int) {
        let waiter = state.withLock { state -> Waiter? in
            guard let waiter = state.waiter, waiter.id == id else { return nil }
            state.waiter = nil
            return waiter
        }
        waiter?.timeout?.cancel()
        waiter?.continuation.resume(returning: false)
    }
}
