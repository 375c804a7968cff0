import Dispatch
import Foundation
import Synchronization

/// A thread of its own for one worker's CPU work: inflating, decoding and deriving records.
///
/// Deriving off the cooperative pool keeps a processor that hangs from starving the writer and the
/// lease's renewal, which share that pool. Deriving off Dispatch's global queues keeps it independent of
/// how fast that pool adds threads when others block on locks or I/O: a run's workers always have their
/// threads. A thread stuck in a processor that never returns stays stuck; the worker gives up on it only
/// when the run is cancelled (see ``run(grace:_:)``).
///
/// The thread starts with its first piece of work: a pool larger than the work it is given starts
/// only the threads the work needs.
final class DerivationThread: Sendable {
    private let name: String
    /// A piece of work: it runs, and returns what tells its waiter, which the thread calls only once
    /// it has let the work go (and whatever the work holds: a worker, so a store).
    private typealias Job = @Sendable () -> @Sendable () -> Void
    private let job = Mutex<Job?>(nil)
    private let started = Atomic<Bool>(false)
    private let stopping = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)

    init(name: String) {
        self.name = name
    }

    /// Starts the thread unless it is running.
    private func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // Named from inside, where the system applies it (`top -H`, /proc/PID/task/TID/comm); Linux
        // refuses a name longer than 15 bytes, and the thread would then have none.
        let shortName = String(decoding: name.utf8.prefix(15), as: UTF8.self)
        let thread = Thread { [self] in
            Thread.current.name = shortName
            loop()
        }
        thread.start()
    }

    private func loop() {
        while true {
            wake.wait()
            var next = job.withLock { $0.take() }
            if next != nil {
                let tell = next!()
                // Let go of the work before its waiter goes on: a run that has returned holds no store
                // through a thread still ending its last piece of work (a restore waits for none).
                next = nil
                tell()
            } else if stopping.load(ordering: .acquiring) {
                return
            }
        }
    }

    /// Ends the thread once it has finished its current work.
    func stop() {
        stopping.store(true, ordering: .releasing)
        wake.signal()
    }

    /// Hands `work` to this thread, which must be idle, and returns at once.
    func submit(_ work: @escaping @Sendable () -> Void) {
        submit(telling: { work(); return {} })
    }

    /// Hands `work` to this thread, which must be idle, and returns at once; what `work` returns is
    /// called once the thread has let `work` go.
    private func submit(telling work: @escaping Job) {
        job.withLock { $0 = work }
        start()
        wake.signal()
    }

    /// Runs `work` on this thread and waits for it; once the task is cancelled, waits at most `grace`
    /// longer, so that what was nearly derived is still committed, then returns nil. An abandoned
    /// piece of work runs on until it returns, if it ever does.
    func run<T: Sendable>(grace: Duration, _ work: @escaping @Sendable () -> T) async -> T? {
        await run(grace: grace) { _ in work() }
    }

    /// Runs `work` on this thread and waits for it, as the `run(grace:_:)` above; `work` is told whether
    /// the task was cancelled, so that work on many records stops taking more at once.
    func run<T: Sendable>(grace: Duration, _ work: @escaping @Sendable (_ isCancelled: () -> Bool) -> T) async -> T? {
        let waiter = Waiter<T>()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
                waiter.continuation.withLock { $0 = continuation }
                submit(telling: {
                    let value = work { waiter.isCancelled }
                    return { waiter.resume(returning: value) }
                })
                // Cancelled before the continuation was stored: the handler found nothing to resume.
                if Task.isCancelled {
                    waiter.abandon(after: grace)
                }
            }
        } onCancel: {
            waiter.abandon(after: grace)
        }
    }
}
