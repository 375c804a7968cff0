import RederiveCodec
import Testing

/// Payloads compressed by either library inflate with either library, to the same bytes.
@Suite("PayloadCompressor: libdeflate or zlib, both read back by both")
struct PayloadCompressorTests {
    static let contents: [(String, [UInt8])] = [
        ("empty", []),
        ("small object", Array(#"{"walls":[]}"#.utf8)),
        ("100 KB of JSON", Sample.largeJSON.bytes),
        ("binary", Sample.binary.bytes),
    ]

    @Test(arguments: InflateLibrary.allCases, InflateLibrary.allCases)
    func compressedByOneInflatesWithTheOther(compressing: InflateLibrary, inflating: InflateLibrary) throws {
        let compressor = PayloadCompressor(library: compressing)
        for (name, content) in Self.contents {
            // Twice, so that reusing the compressor's state is covered.
            for _ in 0..<2 {
                let stored = compressor.zlib(content)
                #expect(PayloadCodec.detect(stored) == .zlib, "\(name)")
                #expect(try PayloadCodec(library: inflating).decode(stored) == content, "\(name)")
            }
        }
    }

    @Test func itUsesLibdeflateExactlyWhenLoadedAndAskedFor() {
        #expect(PayloadCompressor(library: .zlib).library == .zlib)
        #expect(PayloadCompressor(library: .libdeflate).library == (LibDeflate.loaded != nil ? .libdeflate : .zlib))
        #expect(PayloadCompressor().library == InflateLibrary.preferred)
    }

    @Test func zlibPathWritesWhatTheCodecWrites() {
        let json = Sample.largeJSON.bytes
        #expect(PayloadCompressor(library: .zlib).zlib(json) == PayloadCodec.encode(json))
        #expect(PayloadCompressor(level: 1, library: .zlib).zlib(json) == PayloadCodec.encode(json, level: 1))
    }

    @Test(.enabled(if: LibDeflate.loaded != nil))
    func libdeflatePathWritesItsOwnStreamAtLeastAsSmall() {
        let json = Sample.largeJSON.bytes
        let fast = PayloadCompressor(library: .libdeflate).zlib(json)
        let zlib = PayloadCompressor(library: .zlib).zlib(json)
        // Different bytes prove the libdeflate path ran; at level 6 it compresses JSON no worse than zlib.
        #expect(fast != zlib)
        #expect(fast.count <= zlib.count)
        // Trimmed to size: the bound's slack is not kept.
        #expect(fast.capacity <= 2 * fast.count)
    }
}
