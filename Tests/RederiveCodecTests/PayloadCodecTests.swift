import RederiveCodec
import Testing

/// Every test that decodes runs once per inflate path: libdeflate (where it loaded) and zlib.
@Suite struct PayloadCodecTests {
    // MARK: Round trips

    @Test(arguments: Libraries.crossed(Streams.compressedFormats.flatMap { format in Sample.allCases.map { (format, $0) } }))
    func compressedPayloadsDecodeToExactlyWhatWasEncoded(library: InflateLibrary, format: PayloadFormat, sample: Sample) throws {
        let stored = PayloadCodec.encode(sample.bytes, as: format)
        #expect(try PayloadCodec(library: library).decode(stored) == sample.bytes)
    }

    @Test(arguments: Libraries.all, Sample.allCases.filter(\.isJSON))
    func plainPayloadsAreStoredAndDecodedUnchanged(library: InflateLibrary, sample: Sample) throws {
        let stored = PayloadCodec.encode(sample.bytes, as: .plain)
        #expect(stored == sample.bytes)
        #expect(try PayloadCodec(library: library).decode(stored) == sample.bytes)
    }

    @Test(arguments: Libraries.all)
    func plainPayloadsKeepTheirWhitespaceAndByteOrderMark(library: InflateLibrary) throws {
        let text = Array("\u{FEFF}\n  {\"a\": [1, 2]}\r\n".utf8)
        #expect(try PayloadCodec(library: library).decode(text) == text)
    }

    @Test(arguments: Libraries.all, [Int32(0), 1, 6, 9, -1])
    func everyCompressionLevelRoundTrips(library: InflateLibrary, level: Int32) throws {
        let stored = PayloadCodec.encode(Sample.largeJSON.bytes, level: level)
        #expect(try PayloadCodec(library: library).decode(stored) == Sample.largeJSON.bytes)
    }

    @Test func higherLevelsWriteSmallerPayloads() {
        let json = Sample.largeJSON.bytes
        let stored = PayloadCodec.encode(json, level: 0).count
        let fast = PayloadCodec.encode(json, level: 1).count
        let best = PayloadCodec.encode(json, level: 9).count
        #expect(stored > json.count)
        #expect(fast < json.count / 3)
        #expect(best <= fast)
    }

    @Test func encodingDefaultsToZlib() {
        let json = Sample.largeJSON.bytes
        #expect(PayloadCodec.encode(json) == PayloadCodec.encode(json, as: .zlib, level: 6))
        #expect(PayloadCodec.detect(PayloadCodec.encode(json)) == .zlib)
    }

    @Test(arguments: Libraries.all, Streams.compressedFormats)
    func emptyContentRoundTripsThroughEveryCompressedFormat(library: InflateLibrary, format: PayloadFormat) throws {
        #expect(try PayloadCodec(library: library).decode(PayloadCodec.encode([], as: format)) == [])
    }

    @Test(arguments: Libraries.all)
    func concatenatedGzipMembersDecodeToTheirConcatenation(library: InflateLibrary) throws {
        let first = Array(#"{"part":"#.utf8), second = Array(#"1}"#.utf8)
        let stored = PayloadCodec.encode(first, as: .gzip) + PayloadCodec.encode(second, as: .gzip)
        #expect(try PayloadCodec(library: library).decode(stored) == first + second)
    }

    // MARK: Ambiguous first bytes

    @Test(arguments: Libraries.all)
    func rawDeflateThatBeginsWithABraceDecodes(library: InflateLibrary) throws {
        let content = Array("—}".utf8)
        let stored = PayloadCodec.encode(content, as: .deflate)
        #expect(stored.first == UInt8(ascii: "{"))
        #expect(try PayloadCodec(library: library).decode(stored) == content)
    }

    @Test(arguments: Libraries.all)
    func rawDeflateThatLooksLikeAZlibHeaderIsRetriedAsRawDeflate(library: InflateLibrary) throws {
        // A non-final stored block with 94 bytes of JSON, then an empty final fixed block. The stored
        // block's header byte keeps non-zero padding bits (0x78), so its first two bytes, 78 5e,
        // are also the header zlib writes at level 1; read as zlib, the stored lengths are wrong.
        let content = Array(#"{"note":""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: 83) + Array(#""}"#.utf8)
        #expect(content.count == 94)
        let stored: [UInt8] = [0x78, 0x5e, 0x00, 0xa1, 0xff] + content + [0x03, 0x00]
        #expect(PayloadCodec.detect(stored) == .zlib)
        #expect(try PayloadCodec(library: library).decode(stored) == content)
    }

    @Test(arguments: Libraries.all)
    func aDamagedZlibStreamReportsTheZlibErrorNotTheRetry(library: InflateLibrary) {
        var stored = Streams.largeJSON(.zlib)
        stored[stored.count - 1] ^= 0xff
        let error = #expect(throws: PayloadError.self) { try PayloadCodec(library: library).decode(stored) }
        #expect(error?.format == .zlib)
        #expect(error?.code == .checksumMismatch)
    }

    // MARK: Size limit

    @Test(arguments: Libraries.all, Streams.compressedFormats)
    func aPayloadInflatingToExactlyTheLimitDecodes(library: InflateLibrary, format: PayloadFormat) throws {
        let limited = PayloadCodec(maximumSize: 1 << 20, library: library)
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        #expect(try limited.decode(PayloadCodec.encode(zeros, as: format)) == zeros)
    }

    @Test(arguments: Libraries.all, Streams.compressedFormats)
    func aBombBelowTheLimitDecodes(library: InflateLibrary, format: PayloadFormat) throws {
        // 200 MB of zeros is within a 256 MiB limit.
        let generous = PayloadCodec(maximumSize: 256 << 20, library: library)
        let decoded = try generous.decode(Streams.bomb(format))
        #expect(decoded.count == 200 << 20)
        #expect(PayloadCodec.digest(decoded) == Streams.bombContentDigest)
    }

    @Test func theDefaultLimitIs64MiB() {
        #expect(PayloadCodec.defaultMaximumSize == 64 * 1024 * 1024)
        #expect(PayloadCodec().maximumSize == PayloadCodec.defaultMaximumSize)
        var codec = PayloadCodec(maximumSize: 10)
        codec.maximumSize = 20
        #expect(codec.maximumSize == 20)
    }

    // MARK: Digest

    @Test(arguments: Libraries.all)
    func digestIsTheByteCountAboveTheCRC32(library: InflateLibrary) {
        // 0xCBF43926 is the CRC-32 check value of "123456789".
        #expect(PayloadCodec.digest(Array("123456789".utf8), using: library) == 9 << 32 | 0xCBF4_3926)
        #expect(PayloadCodec.digest([], using: library) == 0)
    }

    /// Digests are stored with every stamp: a database derived with libdeflate must read as current with zlib.
    @Test(arguments: Sample.allCases)
    func digestIsTheSameWhicheverLibraryComputesIt(sample: Sample) {
        for bytes in [sample.bytes, PayloadCodec.encode(sample.bytes), Array(sample.bytes.dropFirst(1)), Streams.bomb(.zlib)] {
            let digests = Set(InflateLibrary.allCases.map { PayloadCodec.digest(bytes, using: $0) })
            #expect(digests.count == 1)
            #expect(PayloadCodec.digest(bytes) == PayloadCodec.digest(bytes, using: .zlib))
        }
    }

    @Test(arguments: Sample.allCases)
    func digestIsStable(sample: Sample) {
        let stored = PayloadCodec.encode(sample.bytes)
        #expect(PayloadCodec.digest(stored) == PayloadCodec.digest(Array(stored)))
        #expect(PayloadCodec.digest(stored) == PayloadCodec.digest(PayloadCodec.encode(sample.bytes)))
        #expect(PayloadCodec.digest(stored) >> 32 == Int64(stored.count))
    }

    @Test(arguments: [0, 1, 1000, 50_000])
    func digestChangesWhenOneByteChanges(position: Int) {
        let original = Sample.largeJSON.bytes
        var changed = original
        changed[position] ^= 0x01
        #expect(PayloadCodec.digest(changed) != PayloadCodec.digest(original))
    }

    @Test func digestChangesWhenAByteIsAppended() {
        let original = Sample.largeJSON.bytes
        #expect(PayloadCodec.digest(original + [0]) != PayloadCodec.digest(original))
    }
}

@Suite("PayloadCodec: text that is not quite JSON")
struct PayloadCodecTextFallbackTests {
    @Test(arguments: Libraries.all, ["{\"label\": ", "[1, 2", "{\"a\": [1, 2, 3], \"b\": \"unterminated"])
    func jsonCutShortIsReturnedAsTextForTheDecoderToReject(library: InflateLibrary, _ text: String) throws {
        #expect(try PayloadCodec(library: library).decode(Array(text.utf8)) == Array(text.utf8))
    }

    @Test(arguments: Libraries.all)
    func randomBytesAfterABraceAreStillADecompressionError(library: InflateLibrary) {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        var state: UInt32 = 12345
        for _ in 0..<200 {
            state = state &* 1_103_515_245 &+ 12345
            bytes.append(UInt8(truncatingIfNeeded: state >> 16))
        }
        #expect(throws: PayloadError.self) { _ = try PayloadCodec(library: library).decode(bytes) }
    }
}
