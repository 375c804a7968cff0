import Foundation
@testable import Rederive
import Synchronization
import Testing

/// The channel from workers to the writer: expedited results (a watcher's fresh records) go first.
@Suite("Result channel")
struct ResultChannelTests {
    private func result(_ id: Int64) -> RecordResult {
        RecordResult(recordID: id, generation: 1, payloadDigest: 0, outcomes: [(0, .derived([.integer(id)]))])
    }

    private func received(_ channel: ResultChannel, upTo count: Int) async -> [Int64] {
        // A fill time far longer than any test: only a full batch ends it early.
        guard case .results(let results) = await channel.receive(upTo: count, idleUntil: .now + .seconds(600), fillWithin: .seconds(600)) else {
            return []
        }
        return results.map(\.recordID)
    }

    @Test func anExpeditedResultGoesFirst() async {
        let channel = ResultChannel(capacity: 100)
        channel.expedite([7, 9])
        for id: Int64 in [1, 2, 7, 3, 9, 4] {
            #expect(channel.trySend(result(id)))
        }
        #expect(await received(channel, upTo: 3) == [7, 9, 1])
        #expect(await received(channel, upTo: 3) == [2, 3, 4])
    }

    @Test func anExpeditedResultTakesTheFirstRoomAFullChannelGives() async {
        let channel = ResultChannel(capacity: 2)
        channel.expedite([8])
        #expect(channel.trySend(result(1)))
        #expect(channel.trySend(result(2)))
        #expect(!channel.trySend(result(8)))
        let waiting = Task { await channel.send(result(8)) }
        #expect(await received(channel, upTo: 1) == [1])
        await waiting.value
        #expect(await received(channel, upTo: 2) == [8, 2])
        channel.finish()
        guard case .finished = await channel.receive(upTo: 1, idleUntil: .now + .seconds(600), fillWithin: .seconds(600)) else {
            Issue.record("the finished channel still held results")
            return
        }
    }

    /// Whether a thread's send has returned.
    private final class SentFlag: Sendable {
        private let sent = Atomic<Bool>(false)
        var isSet: Bool { sent.load(ordering: .acquiring) }
        func set() { sent.store(true, ordering: .releasing) }
    }

    /// Sends `result` with ``ResultChannel/sendBlocking(_:)`` from a thread of its own, as a worker's
    /// thread does; the task ends once the thread is let go, and `sent` says so meanwhile.
    private func sendFromThread(_ result: RecordResult, _ channel: ResultChannel, sent: SentFlag) -> Task<Void, Never> {
        Task {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                Thread {
                    channel.sendBlocking(result)
                    sent.set()
                    continuation.resume()
                }.start()
            }
        }
    }

    @Test func aThreadWaitsForRoomAndItsResultIsTakenOnceTheWriterMakesIt() async {
        let channel = ResultChannel(capacity: 1)
        #expect(channel.trySend(result(1)))
        let sent = SentFlag()
        let sender = sendFromThread(result(2), channel, sent: sent)
        #expect(!sent.isSet)
        #expect(await received(channel, upTo: 1) == [1])
        await sender.value
        #expect(await received(channel, upTo: 1) == [2])
    }

    @Test func aThreadWaitingForRoomGoesOnWhenTheRunFails() async {
        let channel = ResultChannel(capacity: 1)
        #expect(channel.trySend(result(1)))
        let sent = SentFlag()
        let sender = sendFromThread(result(2), channel, sent: sent)
        // Until the thread waits, close might come first; it must not block then either.
        try? await Task.sleep(for: .milliseconds(50))
        channel.close()
        await sender.value
        #expect(sent.isSet)
        guard case .finished = await channel.receive(upTo: 1, idleUntil: .now + .seconds(600), fillWithin: .seconds(600)) else {
            Issue.record("a closed channel kept a result")
            return
        }
    }
}
