import Foundation
import GRDB

/// Another program's write lock on a database: `BEGIN EXCLUSIVE` held on a thread of its own until
/// released, as an app in the middle of a long transaction holds it.
final class ExclusiveLock: Sendable {
    private let acquired = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)

    /// Takes the lock on `path`, waiting 10 s at most.
    static func take(_ path: String) async throws -> ExclusiveLock {
        let lock = ExclusiveLock()
        let queue = try DatabaseQueue(path: path)
        Thread.detachNewThread {
            try? queue.inTransaction(.exclusive) { _ in
                lock.acquired.signal()
                lock.released.wait()
                return .rollback
            }
            try? queue.close()
            lock.ended.signal()
        }
        let taken = await Self.offThePool { lock.acquired.wait(timeout: .now() + 10) == .success }
        guard taken else {
            lock.released.signal()
            await offThePool { lock.ended.wait() }
            throw ProcessError("cannot take the exclusive lock on \(path)")
        }
        return lock
    }

    /// Rolls back, closes the connection and waits until it is closed.
    func release() async {
        released.signal()
        await Self.offThePool { self.ended.wait() }
    }

    /// Runs blocking `work` on a thread of its own, not on the cooperative pool.
    private static func offThePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: work()) }
        }
    }
}
