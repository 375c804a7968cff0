@preconcurrency import Dispatch
import Foundation
import Synchronization

/// Cancels a task on SIGINT or SIGTERM, so that a run stops cleanly between records.
/// A second signal ends the process at once.
final class SignalCancellation: Sendable {
    private let sources: [any DispatchSourceSignal]
    private let received: FirstSignal

    /// The status to exit with once the task has stopped: 143 after SIGTERM, else 130, as a shell
    /// reports a process that the signal ended.
    var exitStatus: Int32 {
        received.number.load(ordering: .acquiring) == SIGTERM ? ExitStatus.terminated : ExitStatus.interrupted
    }

    /// Whether SIGINT or SIGTERM was received: the task was cancelled by a signal.
    var hasStopped: Bool {
        received.number.load(ordering: .acquiring) != 0
    }

    /// The first signal received, 0 until one is.
    private final class FirstSignal: Sendable {
        let number = Atomic<Int32>(0)
    }

    /// - Parameter announcement: What the first signal prints: what happens to the work in flight.
    init(
        cancelling task: Task<some Sendable, any Error>, console: Console,
        announcement: String = "stopping after the batches in flight are committed"
    ) {
        let received = FirstSignal()
        self.received = received
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [received] in
                _ = received.number.compareExchange(expected: 0, desired: number, ordering: .acquiringAndReleasing)
                console.errorLine("\nrederive: \(announcement) (signal again to quit now)")
                signal(number, SIG_DFL)
                task.cancel()
            }
            source.resume()
            return source
        }
    }

    /// Restores the default signal behaviour.
    func stop() {
        for source in sources {
            source.cancel()
        }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
