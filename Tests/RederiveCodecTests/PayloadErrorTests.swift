import RederiveCodec
import Testing

/// Every way a payload can fail to decode, and that each message says what is wrong, whichever
/// library inflates: every test runs once per inflate path, libdeflate (where it loaded) and zlib.
@Suite struct PayloadErrorTests {
    /// Decodes `bytes` expecting a failure, and returns it.
    private func failure(
        decoding bytes: [UInt8], with codec: PayloadCodec,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> PayloadError? {
        let error = #expect(throws: PayloadError.self, sourceLocation: sourceLocation) {
            _ = try codec.decode(bytes)
        }
        if let error {
            #expect(error.description == error.message, sourceLocation: sourceLocation)
            #expect(!error.message.contains("\n"), sourceLocation: sourceLocation)
        }
        return error
    }

    @Test(arguments: Libraries.all)
    func anEmptyPayloadIsEmpty(library: InflateLibrary) {
        let error = failure(decoding: [], with: PayloadCodec(library: library))
        #expect(error == PayloadError(code: .empty, format: nil, message: "payload is empty (0 bytes)"))
    }

    // MARK: Truncation

    /// Cut points from the start of the stream to inside its trailer.
    static let cuts: [(PayloadFormat, Int)] = Streams.compressedFormats.flatMap { format in
        let count = Streams.largeJSON(format).count
        return [3, 10, 100, count / 2, count - 5, count - 1].map { (format, $0) }
    }

    @Test(arguments: Libraries.crossed(cuts))
    func aStreamCutShortIsTruncated(library: InflateLibrary, format: PayloadFormat, cut: Int) {
        let stored = Array(Streams.largeJSON(format).prefix(cut))
        let error = failure(decoding: stored, with: PayloadCodec(library: library))
        #expect(error?.code == .truncated)
        #expect(error?.format == format)
        let name = ["zlib": "zlib stream", "deflate": "raw deflate stream", "gzip": "gzip stream"][format.rawValue]!
        #expect(error?.message == "\(name) is truncated after \(cut) of its bytes (no end-of-stream marker)")
    }

    @Test(arguments: Libraries.all)
    func aTruncatedSecondGzipMemberIsTruncated(library: InflateLibrary) {
        let first = PayloadCodec.encode(Array("{}".utf8), as: .gzip)
        let second = Streams.largeJSON(.gzip)
        let error = failure(decoding: first + second.prefix(second.count / 2), with: PayloadCodec(library: library))
        #expect(error?.code == .truncated)
        #expect(error?.message == "gzip stream is truncated after \(first.count + second.count / 2) of its bytes (no end-of-stream marker)")
    }

    // MARK: Checksums

    @Test(arguments: Libraries.crossed([
        // zlib's trailer is the Adler-32 of the content, big-endian.
        (PayloadFormat.zlib, 1, "zlib stream's Adler-32 checksum does not match its inflated content"),
        (.zlib, 4, "zlib stream's Adler-32 checksum does not match its inflated content"),
        // gzip's trailer is the CRC-32, then the length modulo 2^32, both little-endian.
        (.gzip, 8, "gzip stream's CRC-32 checksum does not match its inflated content"),
        (.gzip, 5, "gzip stream's CRC-32 checksum does not match its inflated content"),
        (.gzip, 4, "gzip stream's recorded length does not match its inflated length"),
        (.gzip, 1, "gzip stream's recorded length does not match its inflated length"),
    ]))
    func aFlippedTrailerByteIsAChecksumMismatch(library: InflateLibrary, format: PayloadFormat, fromEnd: Int, message: String) {
        var stored = Streams.largeJSON(format)
        stored[stored.count - fromEnd] ^= 0x5a
        let error = failure(decoding: stored, with: PayloadCodec(library: library))
        #expect(error == PayloadError(code: .checksumMismatch, format: format, message: message))
    }

    @Test(arguments: Libraries.all)
    func aGzipHeaderWithAWrongHeaderCRCIsAChecksumMismatch(library: InflateLibrary) {
        // Header with FHCRC (flag bit 1) set and a CRC-16 of zero, which no header here has.
        let header: [UInt8] = [0x1f, 0x8b, 0x08, 0x02, 0, 0, 0, 0, 0, 0x03, 0x00, 0x00]
        let body = Array(Streams.largeJSON(.gzip).dropFirst(10))
        let error = failure(decoding: header + body, with: PayloadCodec(library: library))
        #expect(error?.code == .checksumMismatch)
        #expect(error?.message == "gzip stream's header CRC does not match its header")
    }

    // MARK: Corrupt data

    @Test(arguments: Libraries.crossed([
        // Block type 3 does not exist.
        ([UInt8](repeating: 0xff, count: 32), PayloadFormat.deflate, "raw deflate stream is corrupt near byte 1 of 32: invalid block type"),
        // A zlib header, then a block of type 3.
        ([0x78, 0x9c, 0xff, 0xff, 0xff, 0xff], .zlib, "zlib stream is corrupt near byte 3 of 6: invalid block type"),
        // A gzip header, then a block of type 3.
        ([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0x03, 0xff, 0xff], .gzip, "gzip stream is corrupt near byte 11 of 12: invalid block type"),
        // A stored block whose length and its complement disagree.
        ([0x01, 0x05, 0x00, 0x00, 0x00, 0x41], .deflate, "raw deflate stream is corrupt near byte 5 of 6: invalid stored block lengths"),
        // A zlib header asking for a preset dictionary.
        ([0x78, 0xbb, 0, 0, 0, 1, 0x03, 0x00], .zlib, "zlib stream is corrupt near byte 6 of 8: it asks for a preset dictionary, which payloads never use"),
    ]))
    func invalidDeflateDataIsCorrupt(library: InflateLibrary, bytes: [UInt8], format: PayloadFormat, message: String) {
        let error = failure(decoding: bytes, with: PayloadCodec(library: library))
        #expect(error == PayloadError(code: .corrupt, format: format, message: message))
    }

    @Test(arguments: Libraries.all, [UInt64(1), 2, 3, 4, 5, 6, 7, 8, 9, 10])
    func randomGarbageFailsAndSaysHow(library: InflateLibrary, seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        let garbage = (0..<2048).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        let error = failure(decoding: garbage, with: PayloadCodec(library: library))
        #expect(error?.format == PayloadCodec.detect(garbage))
        if let error { expectMessageExplains(error) }
    }

    @Test(arguments: Libraries.crossed([PayloadFormat.zlib, .gzip].flatMap { format in [0.25, 0.5, 0.75].map { (format, $0) } }))
    func aDamagedMiddleOfAChecksummedStreamFailsAndSaysHow(library: InflateLibrary, format: PayloadFormat, fraction: Double) {
        // Damage either breaks the deflate data or changes what it inflates to, which the checksum catches.
        // Raw deflate has no checksum, so the same damage can go unnoticed there.
        var stored = Streams.largeJSON(format)
        let position = Int(Double(stored.count) * fraction)
        for offset in 0..<8 { stored[position + offset] ^= 0xa5 }
        let error = failure(decoding: stored, with: PayloadCodec(library: library))
        #expect(error?.format == format)
        #expect(error?.code == .corrupt || error?.code == .checksumMismatch)
        if let error { expectMessageExplains(error) }
    }

    // MARK: Size limit

    @Test(arguments: Libraries.all, Streams.compressedFormats)
    func aDecompressionBombFailsAtTheLimit(library: InflateLibrary, format: PayloadFormat) {
        let limit = 1 << 20
        let limited = PayloadCodec(maximumSize: limit, library: library)
        var work = InflationWork()
        let error = #expect(throws: PayloadError.self) { _ = try limited.decode(Streams.bomb(format), work: &work) }
        let name = ["zlib": "zlib stream", "deflate": "raw deflate stream", "gzip": "gzip stream"][format.rawValue]!
        #expect(error == PayloadError(
            code: .tooLarge, format: format, message: "inflated size of the \(name) exceeds the 1 MiB limit"
        ))
        // It inflated past the limit and stopped there, not at the 200 MiB the bomb holds: buffers
        // double up to one byte past the limit, each attempt starting over, so they add up to less
        // than three times that.
        #expect(work.outputBytes > limit && work.outputBytes < 3 * (limit + 1), "\(work.outputBytes) bytes written")
    }

    @Test(arguments: Libraries.all, Streams.compressedFormats)
    func oneByteOverTheLimitIsTooLarge(library: InflateLibrary, format: PayloadFormat) {
        let limited = PayloadCodec(maximumSize: 1000, library: library)
        let error = failure(decoding: PayloadCodec.encode([UInt8](repeating: 7, count: 1001), as: format), with: limited)
        #expect(error?.code == .tooLarge)
        #expect(error?.message.hasSuffix("exceeds the 1000 bytes limit") == true)
    }

    @Test(arguments: Libraries.all)
    func aPlainPayloadOverTheLimitIsTooLarge(library: InflateLibrary) {
        let limited = PayloadCodec(maximumSize: 10 << 10, library: library)
        let error = failure(decoding: Sample.largeJSON.bytes, with: limited)
        #expect(error == PayloadError(
            code: .tooLarge, format: .plain, message: "size of the plain JSON payload exceeds the 10 KiB limit"
        ))
    }

    // MARK: Trailing data

    @Test(arguments: Libraries.crossed([
        (PayloadFormat.zlib, [UInt8(0)]),
        (.zlib, Array("\n".utf8)),
        (.deflate, Array("xyz".utf8)),
        (.gzip, Array("junk".utf8)),
        (.gzip, [0, 0, 0, 0]),
        (.gzip, [0x1f]),
    ]))
    func bytesAfterTheEndOfTheStreamAreTrailingData(library: InflateLibrary, format: PayloadFormat, extra: [UInt8]) {
        let stored = Streams.largeJSON(format)
        let error = failure(decoding: stored + extra, with: PayloadCodec(library: library))
        #expect(error?.code == .trailingData)
        #expect(error?.format == format)
        let name = ["zlib": "zlib stream", "deflate": "raw deflate stream", "gzip": "gzip stream"][format.rawValue]!
        let amount = extra.count == 1 ? "1 byte" : "\(extra.count) bytes"
        #expect(error?.message == "\(name) ends at byte \(stored.count) but the payload has \(stored.count + extra.count) bytes: \(amount) of trailing data")
    }

    // MARK: Messages

    /// Checks that a message names the format and says what went wrong in words that match its code.
    private func expectMessageExplains(_ error: PayloadError, sourceLocation: SourceLocation = #_sourceLocation) {
        let words: [PayloadError.Code: String] = [
            .empty: "empty", .truncated: "is truncated after", .corrupt: "is corrupt near byte",
            .checksumMismatch: "does not match", .tooLarge: "exceeds", .trailingData: "of trailing data",
        ]
        #expect(error.message.contains(words[error.code]!), sourceLocation: sourceLocation)
        if let format = error.format {
            let name = ["zlib": "zlib", "deflate": "raw deflate", "gzip": "gzip", "plain": "plain"][format.rawValue]!
            #expect(error.message.contains(name), sourceLocation: sourceLocation)
        }
    }
}
