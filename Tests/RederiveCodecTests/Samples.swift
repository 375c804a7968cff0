import Testing
import RederiveCodec

/// Payload contents the tests encode, decode and damage, all built in code.
enum Sample: String, CaseIterable, CustomTestStringConvertible {
    case emptyObject
    case largeJSON
    case binary

    var bytes: [UInt8] {
        switch self {
        case .emptyObject: Array("{}".utf8)
        case .largeJSON: Self.largeJSONBytes
        case .binary: Self.binaryBytes
        }
    }

    var isJSON: Bool { self != .binary }

    var testDescription: String { rawValue }

    /// About 100 KB of JSON shaped like a room export: an array of objects with numbers and strings.
    private static let largeJSONBytes: [UInt8] = {
        var generator = SeededGenerator(seed: 100)
        var text = #"{"version":2,"walls":["#
        var index = 0
        while text.utf8.count < 100_000 {
            if index > 0 { text += "," }
            let width = Double(generator.next() % 10_000) / 1000
            let height = Double(generator.next() % 3_000) / 1000
            text += #"{"id":"wall-\#(index)","width":\#(width),"height":\#(height),"category":"wall","confidence":"high"}"#
            index += 1
        }
        text += "]}"
        return Array(text.utf8)
    }()

    /// Every byte value, then 4 KiB of seeded noise: nothing a text check would take for JSON.
    private static let binaryBytes: [UInt8] = {
        var generator = SeededGenerator(seed: 7)
        return Array(0...255) + (0..<4096).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
    }()
}

/// Compressed payloads in the three compressed formats, for the tests that need a stream rather than content.
enum Streams {
    static let compressedFormats: [PayloadFormat] = [.zlib, .deflate, .gzip]

    /// The 100 KB JSON sample in `format`.
    static func largeJSON(_ format: PayloadFormat) -> [UInt8] {
        PayloadCodec.encode(Sample.largeJSON.bytes, as: format)
    }

    /// 200 MB of zeros (209,715,200 bytes) compressed to about 200 KB.
    static func bomb(_ format: PayloadFormat) -> [UInt8] {
        switch format {
        case .zlib: zlibBomb
        // A zlib stream is a 2-byte header, raw deflate, and a 4-byte checksum.
        case .deflate: Array(zlibBomb[2..<(zlibBomb.count - 4)])
        case .gzip: gzipBomb
        case .plain: preconditionFailure("a plain payload cannot be a bomb")
        }
    }

    // gzip allows members one after another: twenty members of 10 MiB of zeros each.
    private static let gzipBomb = Array(
        repeating: PayloadCodec.encode([UInt8](repeating: 0, count: 10 << 20), as: .gzip, level: 9), count: 20
    ).flatMap { $0 }

    /// The digest of what every bomb inflates to.
    static let bombContentDigest = PayloadCodec.digest(bombContent)

    private static let bombContent = [UInt8](repeating: 0, count: 200 << 20)
    private static let zlibBomb = PayloadCodec.encode(bombContent, as: .zlib, level: 9)
}

/// The inflate paths every decoding test runs through: libdeflate where it loaded, and zlib always.
enum Libraries {
    static let all = InflateLibrary.available

    /// Every library paired with every value, for tests that already take arguments.
    static func crossed<Value>(_ values: [Value]) -> [(InflateLibrary, Value)] {
        all.flatMap { library in values.map { (library, $0) } }
    }

    /// Every library paired with every pair of values.
    static func crossed<First, Second>(_ values: [(First, Second)]) -> [(InflateLibrary, First, Second)] {
        all.flatMap { library in values.map { (library, $0.0, $0.1) } }
    }

    /// Every library paired with every triple of values.
    static func crossed<First, Second, Third>(_ values: [(First, Second, Third)]) -> [(InflateLibrary, First, Second, Third)] {
        all.flatMap { library in values.map { (library, $0.0, $0.1, $0.2) } }
    }
}

/// SplitMix64: the same bytes on every run and every machine.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
