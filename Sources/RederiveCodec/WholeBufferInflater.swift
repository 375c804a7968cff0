import Synchronization

/// The fast path of inflating a stored payload: libdeflate decompresses a whole buffer at once,
/// about twice as fast as zlib's streaming inflate on RoomPlan payloads.
///
/// It answers only what it can answer exactly: the inflated bytes of a clean single stream, or
/// `tooLarge` when the output would pass the limit (the buffer never grows beyond `maximumSize + 1`
/// bytes, so a decompression bomb stays bounded). For anything else (corrupt, truncated or
/// mismatched data, trailing bytes, several gzip members) it returns nil and the caller inflates
/// with zlib, which explains the problem precisely.
package enum WholeBufferInflater {
    package static func inflate(
        _ input: [UInt8], format: PayloadFormat, maximumSize: Int, with libdeflate: LibDeflate
    ) throws(PayloadError) -> [UInt8]? {
        var work = InflationWork()
        return try inflate(input, format: format, maximumSize: maximumSize, with: libdeflate, work: &work)
    }

    /// ``inflate(_:format:maximumSize:with:)``, adding to `work` what each attempt wrote, and reusing
    /// `scratch`'s decompressor and size guess when no other thread is using them.
    package static func inflate(
        _ input: [UInt8], format: PayloadFormat, maximumSize: Int, with libdeflate: LibDeflate, work: inout InflationWork,
        scratch: InflateScratch? = nil
    ) throws(PayloadError) -> [UInt8]? {
        guard format != .plain, !input.isEmpty, !hasGzipHeaderCRC(format, input) else { return nil }
        let limit = maximumSize == Int.max ? Int.max : maximumSize + 1
        var capacity = min(limit, max(1024, input.count.multipliedClamped(by: 4)))
        if format == .gzip, let hint = gzipSizeHint(input) {
            // The trailer's size is only a hint (it is modulo 2^32 and may lie), but usually exact.
            capacity = min(limit, max(capacity, hint))
        }
        if let scratch {
            var reused = work
            // What the attempts wrote counts whether they succeed or throw.
            defer { work = reused }
            let answer = try scratch.state.withLockIfAvailable { (state) throws(PayloadError) -> [UInt8]? in
                guard let decompressor = state.decompressor(from: libdeflate) else { return nil }
                // At least as large as the largest payload so far: usually no second attempt.
                var size = max(capacity, min(limit, state.largestOutput))
                let output = try inflate(
                    input, format: format, maximumSize: maximumSize, limit: limit, capacity: &size,
                    decompress: libdeflate.decompress(format), decompressor: decompressor, work: &reused
                )
                if output != nil { state.held(size) }
                return output
            }
            if let answer {
                return answer
            }
        }
        guard let decompressor = libdeflate.allocDecompressor() else { return nil }
        defer { libdeflate.freeDecompressor(decompressor) }
        return try inflate(
            input, format: format, maximumSize: maximumSize, limit: limit, capacity: &capacity,
            decompress: libdeflate.decompress(format), decompressor: decompressor, work: &work
        )
    }

    /// Inflates into an array of `capacity` bytes, growing `capacity` until the stream fits or passes
    /// the limit. The array is the answer: its pages are written once, by the decompressor.
    private static func inflate(
        _ input: [UInt8], format: PayloadFormat, maximumSize: Int, limit: Int, capacity: inout Int,
        decompress: LibDeflate.Decompress, decompressor: OpaquePointer, work: inout InflationWork
    ) throws(PayloadError) -> [UInt8]? {
        while true {
            var result = LibDeflate.Result.badData
            var consumed = 0
            var produced = 0
            let output = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                let status = input.withUnsafeBytes { source in
                    decompress(decompressor, source.baseAddress, source.count, buffer.baseAddress, buffer.count, &consumed, &produced)
                }
                result = LibDeflate.Result(rawValue: status) ?? .badData
                count = result == .success ? min(produced, buffer.count) : 0
            }
            work.outputBytes += result == .success ? produced : capacity
            switch result {
            case .success:
                if produced > maximumSize { throw .tooLarge(format, limit: maximumSize) }
                return consumed == input.count ? output : nil
            case .insufficientSpace:
                if capacity >= limit { throw .tooLarge(format, limit: maximumSize) }
                capacity = min(limit, capacity.multipliedClamped(by: 2))
            case .badData, .shortOutput:
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
