import Dispatch
import Rederive
import Synchronization

/// Computes `count` results on threads of the engine's pool (`WorkerThreads`) and hands them out in
/// index order.
///
/// Workers take the next index, compute its result and deposit it; the consumer takes results in
/// order with ``next()``, waiting for the one it needs. At most `window` results are claimed and not yet
/// taken, so a slow consumer, or one slow item holding up those after it, stops the workers instead of
/// filling memory. ``cancel()`` stops workers at their next claim and makes ``next()`` throw.
///
/// ```swift
/// let work = OrderedWork(count: files.count, workers: 4, window: 16) {
///     let compressor = PayloadCompressor()          // each worker's own state
///     return { index in prepare(files[index], with: compressor) }
/// }
/// while let prepared = try work.next() { write(prepared) }
/// ```
package final class OrderedWork<Result: Sendable>: Sendable {
    private struct State {
        var nextToClaim = 0
        var nextToTake = 0
        var done: [Int: Result] = [:]
        var cancelled = false
    }

    package let count: Int
    package let workers: Int
    private let state = Mutex(State())
    /// One permit per result that may be in flight: a worker takes one to claim, the consumer returns one per result taken.
    private let slots: DispatchSemaphore
    /// Signalled whenever a result arrives or the work is cancelled; the consumer re-checks after each.
    private let arrivals = DispatchSemaphore(value: 0)

    /// Starts `workers` threads of the engine's pool (at least one) computing the result of every index
    /// below `count`: each thread calls `makeWorker` once, on itself, for the function it then applies to
    /// the indices it claims. Each thread ends once no index is left to claim, or on ``cancel()``.
    package init(
        count: Int, workers: Int, window: Int, name: String = "rederive work",
        makeWorker: @escaping @Sendable () -> (Int) -> Result
    ) {
        self.count = count
        self.workers = max(1, min(workers, max(count, 1)))
        // Created at zero and raised, since libdispatch traps when a semaphore is freed below its initial value.
        slots = DispatchSemaphore(value: 0)
        for _ in 0..<max(window, self.workers) { slots.signal() }
        let threads = WorkerThreads(count: self.workers, name: name)
        threads.start(self.workers) { [self] in
            let transform = makeWorker()
            while let index = claim() {
                deposit(transform(index), at: index)
            }
        }
        threads.stop()
    }

    /// The next index to compute, waiting for room in the window; nil when all are claimed or cancelled.
    private func claim() -> Int? {
        slots.wait()
        let claimed: Int? = state.withLock { state in
            guard !state.cancelled, state.nextToClaim < count else { return nil }
            defer { state.nextToClaim += 1 }
            return state.nextToClaim
        }
        // A worker that leaves passes its permit on, so that every waiting worker wakes and leaves too.
        if claimed == nil { slots.signal() }
        return claimed
    }

    private func deposit(_ result: Result, at index: Int) {
        state.withLock { state in
            if !state.cancelled { state.done[index] = result }
        }
        arrivals.signal()
    }

    /// The result of the next index, in order, waiting until it is computed; nil after the last.
    ///
    /// - Throws: `CancellationError` once ``cancel()`` was called.
    package func next() throws -> Result? {
        while true {
            let taken: Result?? = try state.withLock { state in
                if state.cancelled { throw CancellationError() }
                guard state.nextToTake < count else { return .some(nil) }
                guard let result = state.done.removeValue(forKey: state.nextToTake) else { return nil }
                state.nextToTake += 1
                return .some(result)
            }
            if let taken {
                if taken != nil { slots.signal() }
                return taken
            }
            arrivals.wait()
        }
    }

    /// Stops the work: workers finish the item in hand and claim no more, results are dropped, and
    /// ``next()`` throws from now on.
    package func cancel() {
        state.withLock { state in
            state.cancelled = true
            state.done.removeAll()
        }
        slots.signal()
        arrivals.signal()
    }
}
