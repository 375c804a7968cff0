import Foundation
import Synchronization

/// The last step of a backup or restore, which puts its verified copy in place: a signal handler must
/// not end the process part-way through it (a restore's target would be left out of WAL mode, or a
/// backup written while the handler says none was). The handler calls ``stopAll()``, which waits for
/// a step in progress and keeps any other from starting, since the process ends right after.
package enum FinishingStep {
    private static let lock = NSLock()
    private static let finished = Atomic<Bool>(false)

    /// Runs `body` unless the process is ending on a signal; then it never returns, and the process
    /// ends without the step.
    package static func run<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        let result = try body()
        finished.store(true, ordering: .releasing)
        return result
    }

    /// Waits for a step in progress to end and keeps any other from starting, for good. Returns whether
    /// a step finished: the work is then done, and only saying so is left.
    package static func stopAll() -> Bool {
        lock.lock()
        return finished.load(ordering: .acquiring)
    }
}
