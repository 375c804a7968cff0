#if MetricsEndpoint
import Synchronization

/// The port an endpoint listens on, known once it has bound: waiters are resumed then, or with the
/// error binding threw.
final class BoundPort: Sendable {
    private enum State {
        case waiting([Int: CheckedContinuation<Int, any Error>])
        case bound(Result<Int, any Error>)
    }

    private let state = Mutex<(State, next: Int)>((.waiting([:]), next: 0))

    /// Resumes every waiter with `result`; later calls change nothing.
    func resolve(_ result: Result<Int, any Error>) {
        let waiters: [CheckedContinuation<Int, any Error>] = state.withLock { state in
            guard case .waiting(let waiters) = state.0 else { return [] }
            state.0 = .bound(result)
            return Array(waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    /// The port, once bound; throws what binding threw, or `CancellationError` when the task is cancelled first.
    func value() async throws -> Int {
        let id = state.withLock { state in
            state.next += 1
            return state.next
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
                let known: Result<Int, any Error>? = state.withLock { state in
                    switch state.0 {
                    case .bound(let result):
                        return result
                    case .waiting(var waiters):
                        if Task.isCancelled { return .failure(CancellationError()) }
                        waiters[id] = continuation
                        state.0 = .waiting(waiters)
                        return nil
                    }
                }
                if let known { continuation.resume(with: known) }
            }
        } onCancel: {
            let waiter: CheckedContinuation<Int, any Error>? = state.withLock { state in
                guard case .waiting(var waiters) = state.0, let waiter = waiters.removeValue(forKey: id) else { return nil }
                state.0 = .waiting(waiters)
                return waiter
            }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
#endif
