@testable import Rederive
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
}
