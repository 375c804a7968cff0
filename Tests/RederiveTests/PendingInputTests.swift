import Rederive
import Testing

/// The one rule by which every store says where a claimed record's input comes from.
@Suite struct PendingInputTests {
    let projection = StoredProjection(bytes: [1, 2, 3], payloadDigest: 7)
    let payload: [UInt8] = [9, 9]

    @Test func aCurrentProjectionServesWhateverWasRead() {
        for damage: String? in [nil, "damaged"] {
            let input = PendingInput(projection: projection, readsPayload: true, payload: payload, fallback: nil, damage: damage)
            #expect(input == .projection(projection))
        }
    }

    @Test func aDamagedPayloadFailsTheRecordWithWhyNoProjectionServed() {
        let input = PendingInput(projection: nil, readsPayload: true, payload: nil, fallback: .payloadChanged, damage: "damaged page")
        #expect(input == .unreadable("damaged page", fallback: .payloadChanged))
        #expect(input.projectionFallback == .payloadChanged)
    }

    @Test func thePayloadServesOnlyWhereAProcessorReadsIt() {
        #expect(PendingInput(projection: nil, readsPayload: true, payload: payload, fallback: .missing) == .payload(payload, fallback: .missing))
        #expect(PendingInput(projection: nil, readsPayload: true, payload: nil, fallback: nil) == .payload(nil))
        #expect(PendingInput(projection: nil, readsPayload: false, payload: payload, fallback: .missing) == .notRead)
    }
}
