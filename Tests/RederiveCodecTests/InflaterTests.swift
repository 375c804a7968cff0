import RederiveCodec
import Testing

@Suite struct InflaterTests {
    @Test(arguments: Streams.compressedFormats)
    func aBombNeverGetsABufferLargerThanTheLimit(format: PayloadFormat) {
        var inflater = Inflater(format: format, maximumSize: 1 << 20)
        let error = #expect(throws: PayloadError.self) { try inflater.inflate(Streams.bomb(format)) }
        #expect(error?.code == .tooLarge)
        // One byte past the limit is how the inflater notices it, and where it stops inflating.
        #expect(inflater.largestBufferCapacity == (1 << 20) + 1)
        #expect(inflater.outputBytes == (1 << 20) + 1)
    }

    @Test func theFirstBufferIsFourTimesTheInput() throws {
        // Random digits compress to a bit under half, so their JSON inflates within four times the input.
        var generator = SeededGenerator(seed: 3)
        let json = Array("[\"".utf8) + (0..<40_000).map { _ in UInt8(ascii: "0") + UInt8(generator.next() % 10) } + Array("\"]".utf8)
        let stored = PayloadCodec.encode(json)
        var inflater = Inflater(format: .zlib, maximumSize: PayloadCodec.defaultMaximumSize)
        #expect(try inflater.inflate(stored) == json)
        #expect(inflater.largestBufferCapacity == 4 * stored.count)
    }

    @Test func theBufferDoublesUntilTheContentFits() throws {
        let zeros = [UInt8](repeating: 0, count: 100_000)
        let stored = PayloadCodec.encode(zeros)
        var inflater = Inflater(format: .zlib, maximumSize: PayloadCodec.defaultMaximumSize)
        #expect(try inflater.inflate(stored) == zeros)
        // 1 KiB first (the input is tiny), then doubling: 1024 << 7 = 131,072 is the first to hold 100,000.
        #expect(inflater.largestBufferCapacity == 1024 << 7)
    }

    @Test func growthStopsOneBytePastTheLimit() throws {
        let content = [UInt8](repeating: 1, count: 50_000)
        var inflater = Inflater(format: .deflate, maximumSize: 50_000)
        #expect(try inflater.inflate(PayloadCodec.encode(content, as: .deflate)) == content)
        #expect(inflater.largestBufferCapacity == 50_001)
    }

    @Test func aZeroLimitAcceptsOnlyEmptyContent() throws {
        var inflater = Inflater(format: .gzip, maximumSize: 0)
        #expect(try inflater.inflate(PayloadCodec.encode([], as: .gzip)) == [])
        #expect(throws: PayloadError.self) { try inflater.inflate(PayloadCodec.encode([1], as: .gzip)) }
    }
}
