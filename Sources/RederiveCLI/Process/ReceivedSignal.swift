import Foundation
import Synchronization

/// The first SIGINT or SIGTERM this process received, kept for the exit status: a command ended by a
/// signal exits 128 plus its number, 130 after SIGINT and 143 after SIGTERM, as a shell reports it.
enum ReceivedSignal {
    private static let first = Atomic<Int32>(0)

    /// Keeps `number` unless a signal came before it.
    static func record(_ number: Int32) {
        _ = first.compareExchange(expected: 0, desired: number, ordering: .acquiringAndReleasing)
    }

    /// Whether SIGINT or SIGTERM has arrived.
    static var hasArrived: Bool { first.load(ordering: .acquiring) != 0 }

    /// 143 after SIGTERM, else 130.
    static var exitStatus: Int32 {
        first.load(ordering: .acquiring) == SIGTERM ? ExitStatus.terminated : ExitStatus.interrupted
    }
}
