import Rederive
import Synchronization

/// Records a runner's progress and holds, and lets a test wait for them.
final class HoldEvents: ProgressReporter {
    struct Seen: Sendable {
        var done = 0
        /// Every hold reported, in order: nil when the claims went on again.
        var holds: [ClaimHold?] = []
    }

    private let seen = Mutex(Seen())

    var current: Seen { seen.withLock { $0 } }

    func report(_ event: ProgressEvent) {
        seen.withLock { seen in
            switch event {
            case .advanced(let progress): seen.done = max(seen.done, progress.done)
            case .held(let hold): seen.holds.append(hold)
            default: break
            }
        }
    }

    /// Waits until what was seen satisfies `condition`.
    func wait(until condition: (Seen) -> Bool) async throws {
        while !condition(current) {
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
