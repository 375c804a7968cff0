import Rederive
import Synchronization

/// The run a watcher records its commits under, from the first record it finds stale until it has
/// found nothing for a quiet period, or the run has lasted its window.
final class RollingRun: Sendable {
    /// The run's id in the store's history.
    let id: Int64
    /// When the run started.
    let started: ContinuousClock.Instant
    private let state: Mutex<(counts: RunCounts, lastWork: ContinuousClock.Instant)>

    init(id: Int64, now: ContinuousClock.Instant) {
        self.id = id
        started = now
        state = Mutex((RunCounts(), now))
    }

    /// What the run's commits have counted, also of passes cut short by an outage.
    var counts: RunCounts { state.withLock { $0.counts } }

    /// Adds one commit's counts.
    func add(_ counts: RunCounts) {
        state.withLock { $0.counts += counts }
    }

    /// Notes that the watcher found records to derive at `now`.
    func worked(at now: ContinuousClock.Instant) {
        state.withLock { $0.lastWork = now }
    }

    /// When the run ends unless more records are found: a quiet period after the last work, or the
    /// end of its window, whichever is first.
    func ends(quietPeriod: Duration, window: Duration) -> ContinuousClock.Instant {
        min(state.withLock { $0.lastWork } + quietPeriod, started + window)
    }
}
