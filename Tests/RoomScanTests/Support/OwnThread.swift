import Foundation

/// Runs long CPU work of a test on a thread of its own and waits for it, so that it does not hold one
/// of the few threads of the cooperative pool that every other test in the process shares.
func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try work() })
        }
    }
}
