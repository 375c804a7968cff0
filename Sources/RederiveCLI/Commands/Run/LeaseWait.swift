import Rederive
import Synchronization

/// What `run` does while another process holds the database's lease (a second run, or a watcher that
/// holds it for as long as it runs): it ends at once, with nothing to do, when no record is stale, and
/// gives up after `--wait` (at once with `--no-wait`); otherwise it waits, as before.
///
/// It sits between the runner and the progress display: the runner reports `ProgressEvent/waiting(_:)`
/// while it waits, and this decides, cancelling the run's task (``attach(cancel:)``) when the wait ends.
final class LeaseWait: ProgressReporter {
    /// Why the wait ended without a run.
    enum Outcome: Sendable {
        /// No record is stale: the holder keeps them current, and this run has nothing to do.
        case nothingStale(LeaseHolder)
        /// Records are stale and the holder kept the lease past the bound.
        case gaveUp(LeaseHolder)
    }

    private struct State {
        var outcome: Outcome?
        var checking: Task<Void, Never>?
        var cancel: (@Sendable () -> Void)?
        var started = false
    }

    private let inner: any ProgressReporter
    /// How long to wait at most; nil for as long as the holder runs, zero for not at all.
    private let limit: Duration?
    /// Whether every record of the run's plans is up to date.
    private let nothingStale: @Sendable () async -> Bool
    private let state = Mutex(State())

    init(_ inner: any ProgressReporter, limit: Duration?, nothingStale: @escaping @Sendable () async -> Bool) {
        self.inner = inner
        self.limit = limit
        self.nothingStale = nothingStale
    }

    /// What ends the run's task: called once the wait ends without a run, or at once when it already
    /// has (the check may end the wait before the caller gets to attach).
    func attach(cancel: @escaping @Sendable () -> Void) {
        let ended = state.withLock { state in
            state.cancel = cancel
            return state.outcome != nil
        }
        if ended { cancel() }
    }

    /// Why the wait ended without a run; nil when it did not.
    var outcome: Outcome? { state.withLock { $0.outcome } }

    /// Whether the run started: the wait, if any, is over and records may have been committed.
    var hasStarted: Bool { state.withLock { $0.started } }

    /// Whether the run waited for another process's lease.
    var hasWaited: Bool { state.withLock { $0.checking != nil } }

    func report(_ event: ProgressEvent) {
        switch event {
        case .waiting(let holder):
            let started = state.withLock { state in
                guard state.checking == nil else { return false }
                state.checking = Task { await self.check(holder) }
                return true
            }
            // Said once per holder, unless the run ends at once anyway.
            if limit != .zero || !started { inner.report(event) }
        case .started:
            state.withLock { state in
                state.checking?.cancel()
                state.started = true
            }
            inner.report(event)
        default:
            inner.report(event)
        }
    }

    /// Looks, once a second while the lease is held, whether anything is stale and whether the bound
    /// is reached; ends the wait when either says so.
    private func check(_ holder: LeaseHolder) async {
        let clock = ContinuousClock()
        let start = clock.now
        while !Task.isCancelled {
            if await nothingStale() {
                return end(.nothingStale(holder))
            }
            if let limit, clock.now - start >= limit {
                return end(.gaveUp(holder))
            }
            let remaining = limit.map { $0 - (clock.now - start) } ?? .seconds(1)
            try? await Task.sleep(for: max(.milliseconds(10), min(.seconds(1), remaining)))
        }
    }

    private func end(_ outcome: Outcome) {
        let cancel = state.withLock { state in
            state.outcome = outcome
            return state.cancel
        }
        cancel?()
    }
}
