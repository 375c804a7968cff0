import RederiveCodec
import Testing

/// One codec kept by a worker reuses its decompressor and size guess from payload to payload: the
/// results, errors and limits stay exactly those of a fresh codec, in any order of sizes and formats,
/// and when threads share the codec.
@Suite struct InflateScratchTests {
    /// Payloads of sizes that shrink and grow by decades, in every compressed format, with a few
    /// corrupt ones between them.
    static func mixedPayloads() -> [(json: [UInt8], stored: [UInt8])] {
        var generator = SeededGenerator(seed: 41)
        var payloads: [(json: [UInt8], stored: [UInt8])] = []
        for index in 0..<60 {
            let count = [10, 50_000, 300, 3_000_000, 5_000, 120_000][index % 6]
            let json = Array("[\((0..<count / 8).map { _ in String(generator.next() % 1000) }.joined(separator: ","))]".utf8)
            let format = Streams.compressedFormats[index % 3]
            var stored = PayloadCodec.encode(json, as: format)
            if index % 7 == 3 { stored[stored.count / 2] ^= 0x5a }
            payloads.append((json, stored))
        }
        return payloads
    }

    @Test(arguments: Libraries.all)
    func aReusedCodecAnswersExactlyAsAFreshOneDoes(library: InflateLibrary) throws {
        let kept = PayloadCodec(maximumSize: 1 << 20, library: library)
        for (index, payload) in Self.mixedPayloads().enumerated() {
            let fresh = PayloadCodec(maximumSize: 1 << 20, library: library)
            let expected = Result { () throws(PayloadError) in try fresh.decode(payload.stored) }
            let reused = Result { () throws(PayloadError) in try kept.decode(payload.stored) }
            #expect(reused == expected, "payload \(index)")
            if case .success(let json) = reused, payload.json.count <= 1 << 20 {
                #expect(json == payload.json || index % 7 == 3, "payload \(index)")
            }
        }
    }

    @Test(arguments: Libraries.all)
    func threadsSharingOneCodecEachGetTheirOwnPayloadBack(library: InflateLibrary) async throws {
        let codec = PayloadCodec(library: library)
        let payloads = Self.mixedPayloads().enumerated().filter { $0.offset % 7 != 3 }.map(\.element)
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    var mismatches = 0
                    for round in 0..<3 {
                        for index in stride(from: (worker + round) % 4, to: payloads.count, by: 4) {
                            if (try? codec.decode(payloads[index].stored)) != payloads[index].json { mismatches += 1 }
                        }
                    }
                    return mismatches
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }
}
