import Foundation
import RederiveSQLite
import Synchronization

/// Ends a command that cannot stop part-way, such as a backup in SQLite's copy, on SIGINT or SIGTERM
/// (or one that came while the command was starting): removes the temporary files it was writing
/// (``PartialFiles``), says so in one line and exits with 130 or 143 (``ReceivedSignal``), leaving no
/// `.partial` file behind. A copy being put in place (``FinishingStep``) is let finish first; the
/// command then ends as it would have without the signal, since its work is done.
final class SignalCleanup: Sendable {
    private let ending = Atomic<Bool>(false)

    /// - Parameter announcement: What the line says before the process ends: `backup interrupted; no backup was written`.
    init(console: Console, announcement: String) {
        ProcessSignals.respond { [self] in
            ending.store(true, ordering: .releasing)
            guard !FinishingStep.stopAll() else {
                ending.store(false, ordering: .releasing)
                return
            }
            PartialFiles.removeAll()
            console.errorLine("\nrederive: \(announcement)")
            _exit(ReceivedSignal.exitStatus)
        }
    }

    /// Rethrows `error` unless a signal is ending the process, which then ends with its status: an
    /// error that came of removing the files the command was writing is not the command's to report.
    func rethrow(_ error: any Error) async throws -> Never {
        if ending.load(ordering: .acquiring) {
            while true { try? await Task.sleep(for: .seconds(60)) }
        }
        throw error
    }

    /// Ends the handling: a later signal is the process's again.
    func stop() {
        ProcessSignals.stopResponding()
    }
}
