#if PostgreSQL
import Synchronization

/// Runs an action some time after a task was cancelled, unless stopped first.
final class CancellationTimer: Sendable {
    private let state = Mutex<(timer: Task<Void, Never>?, stopped: Bool)>((nil, false))

    func start(after delay: Duration, _ action: @escaping @Sendable () -> Void) {
        state.withLock { state in
            guard !state.stopped, state.timer == nil else { return }
            state.timer = Task {
                do { try await Task.sleep(for: delay) } catch { return }
                action()
            }
        }
    }

    func stop() {
        let timer = state.withLock { state in
            state.stopped = true
            return state.timer
        }
        timer?.cancel()
    }
}
#endif
