/// A bound on how many child processes the tests that share it run at once, so that a matrix of
/// hundreds of cases, run in parallel by Swift Testing, never starves a machine of two cores.
actor ProcessSlots {
    private var free: Int
    private var waiting: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    init(_ count: Int) {
        free = count
    }

    /// The slot the hostile-database tests share: one process at a time, so that the suites running
    /// beside them in the same `swift test` keep a core on a machine of two.
    static let hostile = ProcessSlots(1)

    /// Runs `body` holding `count` slots (a case that keeps a helper process running takes two).
    nonisolated func withSlots<T: Sendable>(_ count: Int = 1, _ body: @Sendable () async throws -> T) async throws -> T {
        await acquire(count)
        do {
            let result = try await body()
            await release(count)
            return result
        } catch {
            await release(count)
            throw error
        }
    }

    private func acquire(_ count: Int) async {
        if waiting.isEmpty && free >= count {
            free -= count
            return
        }
        await withCheckedContinuation { waiting.append((count, $0)) }
    }

    private func release(_ count: Int) {
        free += count
        while let first = waiting.first, free >= first.count {
            free -= first.count
            waiting.removeFirst().continuation.resume()
        }
    }
}
