import Foundation
import Rederive
import RoomScan
import Testing

@Suite("Hostile payloads")
struct HostileInputTests {
    @Test("each is rejected with a one-line message", arguments: HostileInput.all)
    func rejectedWithOneLineMessage(input: HostileInput) {
        #expect(throws: (any Error).self) { try CapturedRoom(json: input.json) }
        let outcomes = RoomScan.pipeline.evaluate(json: input.json, selection: RoomScan.payloadProcessors)
        for outcome in outcomes {
            guard case .failed(.decoding, let message) = outcome else {
                Issue.record("\(input): expected a decoding failure, got \(outcome)")
                continue
            }
            #expect(!message.isEmpty && !message.contains("\n"), "\(input): \(message)")
            #expect(message.count < 400, "\(input): \(message)")
            if let location = input.location {
                #expect(message.contains(location), "\(input): \(message)")
            }
        }
    }
}
