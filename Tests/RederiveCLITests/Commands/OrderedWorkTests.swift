import Foundation
import RederiveCLI
import Synchronization
import Testing

/// Results computed on many threads come out in index order, with a bounded number in flight.
@Suite("OrderedWork: many workers, results in order, bounded", .timeLimit(.minutes(1)))
struct OrderedWorkTests {
    @Test(arguments: [1, 3, 16])
    func resultsComeOutInIndexOrderWhateverFinishesFirst(workers: Int) throws {
        let count = 400
        let work = OrderedWork<String>(count: count, workers: workers, window: 24) {
            var random = SystemRandomNumberGenerator()
            return { index in
                // Uneven work, so that later indices often finish before earlier ones.
                usleep(UInt32.random(in: 0...400, using: &random))
                return "item-\(index)"
            }
        }
        defer { work.cancel() }
        var results: [String] = []
        while let result = try work.next() { results.append(result) }
        #expect(results == (0..<count).map { "item-\($0)" })
        #expect(try work.next() == nil)
    }

    @Test func atMostTheWindowIsComputedAheadOfTheConsumer() throws {
        let window = 10
        let started = Atomic<Int>(0)
        let work = OrderedWork<Int>(count: 1_000, workers: 8, window: window) {
            { index in
                started.add(1, ordering: .relaxed)
                return index
            }
        }
        defer { work.cancel() }
        // The consumer has taken nothing: the workers fill the window and wait.
        try waitUntil { started.load(ordering: .relaxed) == window }
        usleep(100_000)
        #expect(started.load(ordering: .relaxed) == window)
        // Each result taken lets one more start.
        for expected in 0..<5 { #expect(try work.next() == expected) }
        try waitUntil { started.load(ordering: .relaxed) == window + 5 }
        usleep(100_000)
        #expect(started.load(ordering: .relaxed) == window + 5)
    }

    @Test func cancellingStopsTheWorkersAndTheConsumer() throws {
        let started = Atomic<Int>(0)
        let work = OrderedWork<Int>(count: 1_000_000, workers: 4, window: 8) {
            { index in
                started.add(1, ordering: .relaxed)
                usleep(1_000)
                return index
            }
        }
        #expect(try work.next() == 0)
        work.cancel()
        #expect(throws: CancellationError.self) { try work.next() }
        // Workers finish the item in hand and claim no more.
        usleep(50_000)
        let stopped = started.load(ordering: .relaxed)
        usleep(100_000)
        #expect(started.load(ordering: .relaxed) == stopped)
        #expect(stopped <= 8 + 1)
    }

    /// Polls `condition` for up to ten seconds.
    private func waitUntil(_ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(10)
        while !condition() {
            guard Date() < deadline else { throw TimedOut() }
            usleep(1_000)
        }
    }

    private struct TimedOut: Error {}
}
