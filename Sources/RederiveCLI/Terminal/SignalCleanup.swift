@preconcurrency import Dispatch
import Foundation
import RederiveSQLite

/// Ends a command that cannot stop part-way, such as a backup in SQLite's copy, on SIGINT or SIGTERM:
/// removes the temporary files it was writing (``PartialFiles``), says so in one line and exits with
/// 130 or 143 (``ReceivedSignal``), leaving no `.partial` file behind.
final class SignalCleanup: Sendable {
    private let sources: [any DispatchSourceSignal]

    /// - Parameter announcement: What the line says before the process ends: `backup interrupted; no backup was written`.
    init(console: Console, announcement: String) {
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                ReceivedSignal.record(number)
                PartialFiles.removeAll()
                console.errorLine("\nrederive: \(announcement)")
                _exit(ReceivedSignal.exitStatus)
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
