import Dispatch
import Synchronization

/// Carries derived results from many workers to the one writer, holding at most `capacity` of them:
/// a worker that finds it full waits (a task suspended, a worker's thread blocked), so a slow writer
/// slows the workers instead of filling memory.
///
/// The writer takes what has arrived with ``receive(upTo:idleUntil:fillWithin:)``; ``finish()`` says no
/// more will come, and ``close()`` (the writer failed) drops whatever is sent from then on.
///
/// Results of records named by ``expedite(_:)`` (a watcher's fresh records, claimed ahead of a backlog)
/// go before every other result waiting: they are committed with the next batch, not behind up to two
/// batches queued before them. They do not cut a batch short: a batch of a few records costs a
/// commit's fixed cost for them, and makes a batch sized toward a target duration smaller.
final class ResultChannel: Sendable {
    private struct State {
        var buffer: [RecordResult] = []
        /// Records whose results are expedited when they arrive.
        var expedited: Set<Int64> = []
        /// How many results at the front of `buffer` were expedited.
        var expeditedBuffered = 0
        /// Results waiting for room, each with what wakes its sender once it is taken in.
        var senders: [(RecordResult, wake: @Sendable () -> Void)] = []
        var receiver: CheckedContinuation<Void, Never>?
        /// How many results wake the waiting receiver.
        var wanted = 1
        /// The current wait's deadline passed.
        var timedOut = false
        var finished = false
        var closed = false
    }

    private let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Makes the results of `records` go first when they arrive.
    func expedite(_ records: some Sequence<Int64>) {
        state.withLock { $0.expedited.formUnion(records) }
    }

    /// Hands a result to the writer, waiting while the channel is full.
    func send(_ result: RecordResult) async {
        if trySend(result) { return }
        await withCheckedContinuation { continuation in
            if sendOrQueue(result, wake: { continuation.resume() }) { continuation.resume() }
        }
    }

    /// Hands a result to the writer from a thread of its own, blocking the thread while the channel is
    /// full: the writer makes room, or a failed run closes the channel.
    func sendBlocking(_ result: RecordResult) {
        if trySend(result) { return }
        let room = DispatchSemaphore(value: 0)
        if !sendOrQueue(result, wake: { room.signal() }) { room.wait() }
    }

    /// Buffers `result` if there is room and returns true (as it does when the channel is closed);
    /// otherwise queues it, with `wake` to call once the writer makes room for it, and returns false.
    private func sendOrQueue(_ result: RecordResult, wake: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state in
            if state.closed { return true }
            if Self.admit(result, &state, capacity: capacity) {
                wakeReceiverIfReady(&state)
                return true
            }
            state.senders.append((result, wake))
            return false
        }
    }

    /// Hands a result to the writer unless the channel is full; false when it is full and the result
    /// was not taken.
    func trySend(_ result: RecordResult) -> Bool {
        state.withLock { state in
            guard !state.closed else { return true }
            guard Self.admit(result, &state, capacity: capacity) else { return false }
            wakeReceiverIfReady(&state)
            return true
        }
    }

    /// Buffers `result` if there is room: an expedited one before the other waiting results, after the
    /// expedited ones. False when it must wait for room.
    private static func admit(_ result: RecordResult, _ state: inout State, capacity: Int) -> Bool {
        guard state.buffer.count < capacity else { return false }
        if !state.expedited.isEmpty, state.expedited.remove(result.recordID) != nil {
            state.buffer.insert(result, at: state.expeditedBuffered)
            state.expeditedBuffered += 1
        } else {
            state.buffer.append(result)
        }
        return true
    }

    /// No more results will be sent: the receiver drains what is left.
    func finish() {
        state.withLock { state in
            state.finished = true
            state.receiver?.resume()
            state.receiver = nil
        }
    }

    /// The run failed: waiting senders go on and what they send is dropped; the receiver finds the
    /// channel finished.
    func close() {
        let (senders, receiver) = state.withLock { state in
            state.closed = true
            state.finished = true
            state.buffer.removeAll()
            state.expeditedBuffered = 0
            defer {
                state.senders.removeAll()
                state.receiver = nil
            }
            return (state.senders.map(\.wake), state.receiver)
        }
        for wake in senders { wake() }
        receiver?.resume()
    }

    /// What the writer found.
    enum Received {
        case results([RecordResult])
        /// Nothing arrived before the idle deadline.
        case idle
        /// Every worker is done and everything was taken.
        case finished
    }

    /// Waits for a first result until `idleDeadline`; once one is there, waits up to `fillTime` more for
    /// `count` results, then takes up to `count`, expedited results first.
    func receive(upTo count: Int, idleUntil idleDeadline: ContinuousClock.Instant, fillWithin fillTime: Duration) async -> Received {
        await waitFor(1, deadline: idleDeadline)
        let available = state.withLock { $0.buffer.count + $0.senders.count }
        if available == 0 {
            return state.withLock { $0.finished } ? .finished : .idle
        }
        await waitFor(count, deadline: .now + fillTime)
        let (taken, released) = state.withLock { state -> ([RecordResult], [@Sendable () -> Void]) in
            let taken = Array(state.buffer.prefix(count))
            state.buffer.removeFirst(taken.count)
            state.expeditedBuffered = max(0, state.expeditedBuffered - taken.count)
            // Waiting senders move into the freed room.
            var released: [@Sendable () -> Void] = []
            while state.buffer.count < capacity, !state.senders.isEmpty {
                let (result, wake) = state.senders.removeFirst()
                _ = Self.admit(result, &state, capacity: capacity)
                released.append(wake)
            }
            return (taken, released)
        }
        for wake in released { wake() }
        return .results(taken)
    }

    /// Suspends until `count` results are buffered, the channel is finished, or `deadline` passes.
    /// Cancellation does not end the wait early: the writer drains until every worker is done.
    private func waitFor(_ count: Int, deadline: ContinuousClock.Instant) async {
        state.withLock { $0.timedOut = false }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [self] in
                // Cancelled when the results arrive first; otherwise wakes the receiver at the deadline.
                // A cancelled run's sleep ends at once, so the waits become short polls until the workers stop.
                try? await Task.sleep(until: deadline, clock: .continuous)
                wakeReceiver()
            }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready: Bool = state.withLock { state in
                    if state.finished || state.timedOut || state.buffer.count + state.senders.count >= count { return true }
                    state.wanted = count
                    state.receiver = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
            group.cancelAll()
        }
    }

    private func wakeReceiver() {
        state.withLock { state in
            state.timedOut = true
            state.receiver?.resume()
            state.receiver = nil
        }
    }

    private func wakeReceiverIfReady(_ state: inout State) {
        if state.buffer.count >= min(state.wanted, capacity), let receiver = state.receiver {
            receiver.resume()
            state.receiver = nil
        }
    }
}
