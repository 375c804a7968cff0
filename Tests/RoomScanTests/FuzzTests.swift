import Foundation
import Rederive
import RederiveCodec
import RoomScan
import Testing

/// A seeded mutation fuzzer over the payload codec and the RoomScan decoder, seeded from the real
/// exports (whole, and without their large `coreModel` so that more mutations run per second).
///
/// Each input is a real export, plain or compressed, with a few mutations: flipped bits, random
/// bytes, inserted JSON tokens, deleted, duplicated or spliced ranges, truncation. Whatever comes
/// out, decoding and deriving must not crash or hang, every failure must be one line, and every
/// value derived must be finite. It runs `REDERIVE_FUZZ_ITERATIONS` inputs (default 4,000, a few
/// seconds in a debug build) with seed `REDERIVE_FUZZ_SEED` (default 1): the same seed produces the
/// same inputs in the same order on any machine, however fast, so the test checks the same thing
/// everywhere. Raise the count or change the seed to search further; `REDERIVE_FUZZ_TRACE=1` prints
/// each iteration's number before it runs, to find one that crashes.
/// Every crash found becomes a regression test in ``HostileInputTests`` or below.
@Suite("Fuzzing the codec and the RoomScan decoder", .timeLimit(.minutes(5)))
struct FuzzTests {
    static let environment = ProcessInfo.processInfo.environment
    static let iterations = max(1, Int(environment["REDERIVE_FUZZ_ITERATIONS"] ?? "") ?? 4_000)
    static let seed = UInt64(environment["REDERIVE_FUZZ_SEED"] ?? "") ?? 1
    static let trace = environment["REDERIVE_FUZZ_TRACE"] == "1"

    static let tokens: [[UInt8]] = [
        "{", "}", "[", "]", "\"", ",", ":", "null", "true", "-", "1e400", "-0", "1e-400", "NaN", "\\u", "\\ud800",
        "{\"walls\":", "\"dimensions\":[", "\"transform\":[", "\"category\":{", "\"polygonCorners\":[[",
        "123456789012345678901234567890", String(repeating: "[", count: 600),
    ].map { Array($0.utf8) }

    func seeds() throws -> [[UInt8]] {
        var seeds: [[UInt8]] = []
        for name in Fixtures.exportNames {
            let json = try Fixtures.export(name)
            seeds.append(json)
            if var object = try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any] {
                object["coreModel"] = nil
                seeds.append([UInt8](try JSONSerialization.data(withJSONObject: object)))
            }
        }
        return seeds
    }

    @Test func mutatedPayloadsFailCleanlyOrDeriveFiniteValues() async throws {
        let seeds = try seeds()
        #expect(seeds.count == 2 * Fixtures.exportNames.count)
        let problems = try await onOwnThread { Self.fuzz(seeds) }
        #expect(problems.isEmpty, "\(problems.prefix(20).joined(separator: "\n"))")
    }

    /// Runs the seeded iterations and returns what went wrong, one line each.
    static func fuzz(_ seeds: [[UInt8]]) -> [String] {
        var problems: [String] = []
        var random = FuzzRandom(seed: Self.seed)
        var outcomes = (decompression: 0, decoding: 0, derived: 0)
        for iteration in 1...Self.iterations {
            if Self.trace { print("fuzz seed \(Self.seed) iteration \(iteration)") }
            let input = Self.mutate(seeds, &random)
            let codec = PayloadCodec(maximumSize: random.next() % 4 == 0 ? 4_096 : PayloadCodec.defaultMaximumSize)
            let json: [UInt8]
            do {
                json = try codec.decode(input)
            } catch {
                outcomes.decompression += 1
                if error.message.isEmpty || error.message.contains("\n") { problems.append("iteration \(iteration): \(error.message)") }
                continue
            }
            let selection = Array(RoomScan.processors.indices)
            for (index, outcome) in zip(selection, RoomScan.pipeline.evaluate(json: json, selection: selection)) {
                switch outcome {
                case .failed(let kind, let message):
                    outcomes.decoding += 1
                    // What does not decode fails the processors that read the payload, and theirs dependents upstream.
                    let expected: FailureKind = RoomScan.processors[index].readsPayload ? .decoding : .upstream
                    if kind != expected { problems.append("iteration \(iteration): \(kind) \(message)") }
                    if message.isEmpty || message.contains("\n") { problems.append("iteration \(iteration): \(message)") }
                case .derived(let values):
                    outcomes.derived += 1
                    for case .real(let value) in values where !value.isFinite {
                        problems.append("iteration \(iteration) derived \(value)")
                    }
                }
            }
        }
        // The mutations reach every layer: some inputs fail to inflate, some to decode, some derive.
        if !(outcomes.decompression > 0 && outcomes.decoding > 0 && outcomes.derived > 0) {
            problems.append("not every layer was reached: \(outcomes) in \(Self.iterations) iterations")
        }
        return problems
    }

    /// A seed, plain or compressed, with one to four mutations.
    static func mutate(_ seeds: [[UInt8]], _ random: inout FuzzRandom) -> [UInt8] {
        var bytes = seeds[random.below(seeds.count)]
        let compress = random.below(3)
        // Mutate the JSON and then compress it, or compress and then mutate the stream.
        if compress == 1 { bytes = PayloadCodec.encode(bytes, as: [.zlib, .deflate, .gzip][random.below(3)]) }
        for _ in 0...random.below(4) {
            guard !bytes.isEmpty else { break }
            let position = random.below(bytes.count)
            switch random.below(8) {
            case 0:
                bytes[position] ^= 1 << UInt8(random.below(8))
            case 1:
                bytes[position] = UInt8(truncatingIfNeeded: random.next())
            case 2:
                bytes.insert(contentsOf: tokens[random.below(tokens.count)], at: position)
            case 3:
                bytes.removeSubrange(position..<min(bytes.count, position + 1 + random.below(64)))
            case 4:
                let end = min(bytes.count, position + 1 + random.below(256))
                bytes.insert(contentsOf: bytes[position..<end], at: random.below(bytes.count))
            case 5:
                bytes.removeSubrange(position...)
            case 6:
                let other = seeds[random.below(seeds.count)]
                let start = random.below(other.count)
                bytes.replaceSubrange(position..., with: other[start...])
            default:
                // A number swapped for an extreme one, where the decoder reads numbers.
                if let digit = bytes[position...].firstIndex(where: { (0x30...0x39).contains($0) }) {
                    bytes.replaceSubrange(digit...digit, with: Array(["1e308", "-1e308", "99999999", "1e-320", "0.0"][random.below(5)].utf8))
                }
            }
        }
        if compress == 2 { bytes = PayloadCodec.encode(bytes, as: [.zlib, .deflate, .gzip][random.below(3)]) }
        return bytes
    }
}

/// SplitMix64: the same seed gives the same inputs everywhere.
struct FuzzRandom {
    var generator: SplitMix64

    init(seed: UInt64) { generator = SplitMix64(seed: seed) }

    mutating func next() -> UInt64 {
        generator.next()
    }

    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(max(bound, 1)))
    }
}
