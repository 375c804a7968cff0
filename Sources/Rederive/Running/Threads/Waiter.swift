import Synchronization

/// The continuation of one piece of work, resumed once: by the work or by giving up on it.
///
/// A run that is cancelled waits for the records in flight a short grace period at most: a piece of
/// work that hangs is abandoned to run on, and the run ends.
final class Waiter<T: Sendable>: Sendable {
    let continuation = Mutex<CheckedContinuation<T?, Never>?>(nil)
    private let cancelled = Atomic<Bool>(false)

    /// Whether the task waiting for the work was cancelled.
    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    func resume(returning value: T?) {
        continuation.withLock { $0.take() }?.resume(returning: value)
    }

    func abandon(after grace: Duration) {
        cancelled.store(true, ordering: .relaxed)
        BlockingWork.after(grace) { self.resume(returning: nil) }
    }

    /// Runs `work` in a task of its own and waits for it; once the calling task is cancelled, waits at
    /// most `grace` longer, then returns nil and leaves the work to end when it does.
    static func result(within grace: Duration, of work: @escaping @Sendable () async -> T) async -> T? {
        let waiter = Waiter<T>()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
                waiter.continuation.withLock { $0 = continuation }
                Task { waiter.resume(returning: await work()) }
                // Cancelled before the continuation was stored: the handler found nothing to resume.
                if Task.isCancelled {
                    waiter.abandon(after: grace)
                }
            }
        } onCancel: {
            waiter.abandon(after: grace)
        }
    }
}
