/// Cancels a task on SIGINT or SIGTERM, so that a run stops cleanly between records; a signal that
/// came before, while the command was starting, cancels it at once. A second signal ends the process
/// at once (``ProcessSignals``).
final class SignalCancellation: Sendable {
    /// The status to exit with once the task has stopped: 143 after SIGTERM, else 130.
    var exitStatus: Int32 { ReceivedSignal.exitStatus }

    /// Whether SIGINT or SIGTERM was received: the task was cancelled by a signal.
    var hasStopped: Bool { ReceivedSignal.hasArrived }

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
        ProcessSignals.respond {
            console.errorLine("\nrederive: \(announcing()) (signal again to quit now)")
            task.cancel()
        }
    }

    /// Ends the handling: a later signal is the process's again.
    func stop() {
        ProcessSignals.stopResponding()
    }
}
