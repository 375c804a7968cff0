import CDeflate

/// The fast path of inflating a stored payload: libdeflate decompresses a whole buffer at once,
/// about twice as fast as zlib's streaming inflate on RoomPlan payloads.
///
/// It answers only what it can answer exactly: the inflated bytes of a clean single stream, or
/// `tooLarge` when the output would pass the limit (the buffer never grows beyond `maximumSize + 1`
/// bytes, so a decompression bomb stays bounded). For anything else (corrupt, truncated or
/// mismatched data, trailing bytes, several gzip members) it returns nil and the caller inflates
/// with zlib, which explains the problem precisely.
package enum WholeBufferInflater {
    package static func inflate(_ input: [UInt8], format: PayloadFormat, maximumSize: Int) throws(PayloadError) -> [UInt8]? {
        guard format != .plain, !input.isEmpty, !hasGzipHeaderCRC(format, input),
              let decompressor = libdeflate_alloc_decompressor()
        else { return nil }
        defer { libdeflate_free_decompressor(decompressor) }
        let limit = maximumSize == Int.max ? Int.max : maximumSize + 1
        var capacity = min(limit, max(1024, input.count.multipliedClamped(by: 4)))
        if format == .gzip, let hint = gzipSizeHint(input) {
            // The trailer's size is only a hint (it is modulo 2^32 and may lie), but usually exact.
            capacity = min(limit, max(capacity, hint))
        }
        while true {
            var result = LIBDEFLATE_BAD_DATA
            var consumed = 0
            var produced = 0
            let output = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                result = input.withUnsafeBytes { source in
                    switch format {
                    case .zlib:
                        libdeflate_zlib_decompress_ex(
                            decompressor, source.baseAddress, source.count, buffer.baseAddress, buffer.count, &consumed, &produced)
                    case .gzip:
                        libdeflate_gzip_decompress_ex(
                            decompressor, source.baseAddress, source.count, buffer.baseAddress, buffer.count, &consumed, &produced)
                    case .deflate, .plain:
                        libdeflate_deflate_decompress_ex(
                            decompressor, source.baseAddress, source.count, buffer.baseAddress, buffer.count, &consumed, &produced)
                    }
                }
                count = result == LIBDEFLATE_SUCCESS ? produced : 0
            }
            switch result {
            case LIBDEFLATE_SUCCESS:
                if produced > maximumSize { throw .tooLarge(format, limit: maximumSize) }
                return consumed == input.count ? output : nil
            case LIBDEFLATE_INSUFFICIENT_SPACE:
                if capacity >= limit { throw .tooLarge(format, limit: maximumSize) }
                capacity = min(limit, capacity.multipliedClamped(by: 2))
            default:
                return nil
            }
        }
    }

    /// Whether a gzip header carries its own CRC (FHCRC), which libdeflate does not check: zlib does.
    private static func hasGzipHeaderCRC(_ format: PayloadFormat, _ input: [UInt8]) -> Bool {
        format == .gzip && input.count > 3 && input[3] & 0x02 != 0
    }

    /// ISIZE, the last four bytes of a gzip member: the inflated size modulo 2^32, little-endian.
    private static func gzipSizeHint(_ input: [UInt8]) -> Int? {
        guard input.count >= 18 else { return nil }
        let tail = input.suffix(4)
        return tail.reversed().reduce(0) { $0 << 8 | Int($1) }
    }
}
