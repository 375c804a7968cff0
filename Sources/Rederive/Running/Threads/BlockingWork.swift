import Dispatch

/// Runs work that blocks its thread (SQLite waiting for the write lock, pipe I/O, a synchronous
/// migration step) where it holds up nothing else, and waits for it without blocking the caller; and
/// calls back after a delay without needing a free thread of Dispatch's global pool.
///
/// Not on `DispatchQueue.global()`: on Linux that pool has as many threads as the machine has cores,
/// so work blocked there holds up everything else the process queues on it, timers included. A test
/// process with another writer holding SQLite's lock waited more than 30 s for a 50 ms timer. A serial
/// queue made for the call is served by Dispatch's overcommitting pool instead, which starts another
/// thread when those it has are busy.
package enum BlockingWork {
    /// The queue of ``after(_:_:)``: each of its callbacks only resumes a waiting task.
    private static let timers = DispatchQueue(label: "rederive.timers")

    /// Runs `work` on a thread that may block, and returns or throws what it did.
    package static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue(label: "rederive.blocking").async {
                continuation.resume(with: Result { try work() })
            }
        }
    }

    /// Runs `work` on a thread that may block, and returns what it returned.
    package static func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue(label: "rederive.blocking").async {
                continuation.resume(returning: work())
            }
        }
    }

    /// Calls `action` once `delay` has passed. `action` must not block: it runs on a queue shared by
    /// every such callback.
    package static func after(_ delay: Duration, _ action: @escaping @Sendable () -> Void) {
        let nanoseconds = Int(min(max(0, delay.secondsValue) * 1e9, Double(Int.max / 2)))
        timers.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds), execute: action)
    }
}
