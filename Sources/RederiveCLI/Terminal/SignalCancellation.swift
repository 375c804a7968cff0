@preconcurrency import Dispatch
import Foundation

/// Cancels a task on SIGINT or SIGTERM, so that a run stops cleanly between records.
/// A second signal ends the process at once.
final class SignalCancellation: Sendable {
    private let sources: [any DispatchSourceSignal]

    /// The status to exit with once the task has stopped: 143 after SIGTERM, else 130.
    var exitStatus: Int32 { ReceivedSignal.exitStatus }

    /// - Parameter announcement: What the first signal prints: what happens to the work in flight.
    convenience init(
        cancelling task: Task<some Sendable, any Error>, console: Console,
        announcement: String = "stopping after the batches in flight are committed"
    ) {
        self.init(cancelling: task, console: console, announcing: { announcement })
    }

    /// - Parameter announcing: Called when the first signal comes, before the task is cancelled:
    ///   what happens to the work in flight, as it stands then.
    init(cancelling task: Task<some Sendable, any Error>, console: Console, announcing: @escaping @Sendable () -> String) {
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                ReceivedSignal.record(number)
                console.errorLine("\nrederive: \(announcing()) (signal again to quit now)")
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
