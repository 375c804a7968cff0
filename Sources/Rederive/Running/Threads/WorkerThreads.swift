import Synchronization

/// The one pool for long CPU work off the cooperative threads: `count` dedicated threads, each taking
/// the next item as soon as it is free, so a large payload holds up only its own thread. The runner
/// gives each of its claiming workers one of these threads; the dry run, `verify` and `generate` map
/// whole pages with ``map(_:_:)``; `import` starts workers that feed themselves with ``start(_:_:)``.
///
/// Deriving is long synchronous work: on the cooperative pool it would starve every other task of
/// the process (progress, the writer, an app's own tasks) for as long as it runs.
package final class WorkerThreads: Sendable {
    let threads: [DerivationThread]

    /// A pool of `count` threads (at least one), named `name` and their number; each starts with its
    /// first piece of work.
    package init(count: Int, name: String) {
        threads = (0..<max(1, count)).map { DerivationThread(name: "\(name) \($0)") }
    }

    /// How many threads the pool has.
    package var count: Int { threads.count }

    /// Ends the threads once their current work is done.
    package func stop() {
        threads.forEach { $0.stop() }
    }

    /// Starts `work` on the first `workers` threads and returns at once: work that takes its items
    /// itself, from a queue the threads share, and returns when none is left. The threads must be
    /// idle; ``stop()`` ends each one once its work returns.
    package func start(_ workers: Int, _ work: @escaping @Sendable () -> Void) {
        for thread in threads.prefix(workers) {
            thread.submit(work)
        }
    }

    /// Transforms every item on the threads; the results keep the items' order. When the task is
    /// cancelled the threads stop taking items and the results end early, at the first item not done.
    package func map<Item: Sendable, Output: Sendable>(
        _ items: [Item], _ transform: @escaping @Sendable (Item) -> Output
    ) async -> [Output] {
        let next = ItemCursor()
        let workers = min(threads.count, items.count)
        let produced = await withTaskGroup(of: [(Int, Output)].self) { group in
            for worker in 0..<workers {
                let thread = threads[worker]
                group.addTask {
                    var produced: [(Int, Output)] = []
                    while !Task.isCancelled {
                        let index = next.take()
                        guard index < items.count else { break }
                        let item = items[index]
                        guard let output = await thread.run(grace: .seconds(10), { transform(item) }) else { break }
                        produced.append((index, output))
                    }
                    return produced
                }
            }
            var slots = [Output?](repeating: nil, count: items.count)
            for await part in group {
                for (index, output) in part { slots[index] = output }
            }
            return slots
        }
        return Array(produced.prefix { $0 != nil }.map { $0! })
    }
}

/// Hands out item indices to the threads of one ``WorkerThreads/map(_:_:)``.
private final class ItemCursor: Sendable {
    private let position = Atomic<Int>(0)

    func take() -> Int {
        position.wrappingAdd(1, ordering: .relaxed).oldValue
    }
}
