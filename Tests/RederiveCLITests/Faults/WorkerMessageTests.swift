import Rederive
@testable import RederiveCLI
import Testing

/// What `run --isolate` sends its worker processes: every kind of a record's input arrives as it left.
@Suite("Worker messages")
struct WorkerMessageTests {
    static let inputs: [PendingInput] = [
        .notRead,
        .payload(nil),
        .payload([1, 2, 3], fallback: .payloadChanged),
        .projection(StoredProjection(bytes: [9, 8], payloadDigest: -42)),
        .unreadable("its payload is on a damaged page", fallback: .missing),
    ]

    @Test(arguments: inputs)
    func aRecordArrivesWithItsInput(input: PendingInput) throws {
        let record = PendingRecord(recordID: 7, generation: 3, staleProcessors: [0, 2], input: input)
        let decoded = try WorkerMessages.decodeRecord(WorkerMessages.encode(record))
        #expect(decoded.input == input)
        #expect(decoded.recordID == 7 && decoded.generation == 3 && decoded.staleProcessors == [0, 2])
    }

    @Test func anInputOfUnknownKindIsMalformed() throws {
        var body = WorkerMessages.encode(PendingRecord(recordID: 7, generation: 3, staleProcessors: [0], input: .notRead))
        // The input's kind follows the id, the generation and the one stale processor.
        let kind = 8 + 8 + 4 + 4
        #expect(body[kind] == 2)
        body[kind] = 9
        #expect(throws: MalformedMessage.self) { try WorkerMessages.decodeRecord(body) }
    }
}
