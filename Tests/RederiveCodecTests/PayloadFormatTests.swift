import RederiveCodec
import Testing

@Suite struct PayloadFormatTests {
    @Test func rawValuesAreTheFormatNames() {
        #expect(PayloadFormat.allCases.map(\.rawValue) == ["zlib", "deflate", "gzip", "plain"])
        #expect(PayloadFormat(rawValue: "gzip") == .gzip)
    }

    @Test(arguments: [Int32(0), 1, 6, 9])
    func zlibIsDetectedAtEveryCompressionLevel(level: Int32) {
        // zlib writes a different header byte for each level band: 78 01, 78 5e, 78 9c, 78 da.
        let stored = PayloadCodec.encode(Sample.largeJSON.bytes, as: .zlib, level: level)
        #expect(PayloadCodec.detect(stored) == .zlib)
    }

    @Test(arguments: Sample.allCases)
    func eachCompressedFormatIsDetectedWhateverItHolds(sample: Sample) {
        for format in Streams.compressedFormats {
            #expect(PayloadCodec.detect(PayloadCodec.encode(sample.bytes, as: format)) == format)
        }
    }

    @Test(arguments: [
        "{}",
        "[]",
        "  [1, 2, 3]\n",
        "\r\n\t{\"name\": \"Küche – 厨房\"}  \n",
        "\u{FEFF}{\"bom\": true}",
        "{\"a\": \"" + String(repeating: "x", count: 500) + "\"}",
    ])
    func jsonTextIsDetectedAsPlain(text: String) {
        #expect(PayloadCodec.detect(Array(text.utf8)) == .plain)
    }

    @Test(arguments: [
        // Starts and ends like JSON, but a control byte shows it is not text.
        [UInt8(ascii: "{"), 0x01, 0x02, UInt8(ascii: "}")],
        // Starts like JSON but does not end like it.
        Array("{\"a\": 1".utf8),
        // A byte that UTF-8 never uses.
        [UInt8(ascii: "[")] + [0xff] + Array("]".utf8),
        // Whitespace only.
        Array("  \n".utf8),
        // Not JSON at all.
        Array("hello".utf8),
    ])
    func bytesThatOnlyResembleJSONAreDetectedAsRawDeflate(bytes: [UInt8]) {
        #expect(PayloadCodec.detect(bytes) == .deflate)
    }

    @Test func rawDeflateThatBeginsWithABraceIsNotMistakenForPlainJSON() {
        // A fixed-Huffman block whose first literal is 0xE0–0xEF starts with the byte 0x7B, "{".
        let stored = PayloadCodec.encode(Array("—}".utf8), as: .deflate)
        #expect(stored.first == UInt8(ascii: "{"))
        #expect(PayloadCodec.detect(stored) == .deflate)
    }

    @Test func emptyInputHasNoFormat() {
        #expect(PayloadCodec.detect([]) == nil)
    }

    @Test func gzipNeedsItsWholeMagicNumber() {
        #expect(PayloadCodec.detect([0x1f, 0x8b, 0x08]) == .gzip)
        #expect(PayloadCodec.detect([0x1f, 0x8b]) == .deflate)
        #expect(PayloadCodec.detect([0x1f, 0x8b, 0x07]) == .deflate)
    }

    @Test(arguments: [
        ([UInt8(0x78), 0x9c], PayloadFormat.zlib),
        ([0x08, 0x1d], .zlib),     // smallest window, CINFO 0
        ([0x78, 0x9d], .deflate),  // header checksum not divisible by 31
        ([0x88, 0x98], .deflate),  // CINFO 8: a window larger than deflate allows
        ([0x79, 0x18], .deflate),  // compression method 9, checksum fine
    ])
    func zlibHeaderNeedsMethodEightAValidWindowAndItsChecksum(header: [UInt8], expected: PayloadFormat) {
        #expect(PayloadCodec.detect(header + [0, 0, 0, 0]) == expected)
    }
}
