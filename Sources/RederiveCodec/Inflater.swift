import CZlib

/// A bounded, streaming inflate of one whole zlib, raw deflate or gzip payload.
///
/// zlib writes straight into the array that is returned. The array starts at an estimate
/// (four times the input) and doubles whenever zlib fills it, but never beyond `maximumSize + 1`
/// bytes: one byte past the limit is how an oversized payload is noticed, so a decompression
/// bomb stops there instead of allocating what it would inflate to.
package struct Inflater {
    /// The format to inflate: ``PayloadFormat/zlib``, ``PayloadFormat/deflate`` or ``PayloadFormat/gzip``.
    package let format: PayloadFormat
    /// The largest inflated size accepted, in bytes.
    package let maximumSize: Int
    /// The largest output buffer this inflater has allocated, in bytes; tests read it to check
    /// that a bomb never gets more than the limit.
    package private(set) var largestBufferCapacity = 0
    /// Bytes zlib has written so far, the work done: a bomb stops one byte past the limit.
    package private(set) var outputBytes = 0

    /// The smallest first buffer, so that tiny inputs do not regrow several times.
    private static let minimumInitialCapacity = 1024

    /// Creates an inflater for one of the compressed formats.
    package init(format: PayloadFormat, maximumSize: Int) {
        precondition(format != .plain, "plain payloads are not inflated")
        self.format = format
        self.maximumSize = max(0, maximumSize)
    }

    /// Inflates `input`, which must hold exactly one stream (for gzip, one or more members).
    package mutating func inflate(_ input: [UInt8]) throws(PayloadError) -> [UInt8] {
        guard !input.isEmpty else { throw .empty() }

        // zlib keeps a pointer back to its z_stream, so the stream needs an address that never moves.
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        guard czlib_inflateInit2(stream, format.windowBits) == Z_OK else {
            fatalError("zlib could not allocate its inflate state")
        }
        defer { inflateEnd(stream) }

        return try input.withUnsafeBufferPointer { (source) throws(PayloadError) -> [UInt8] in
            var run = Run(stream: stream, source: source, format: format)
            let limit = maximumSize == Int.max ? Int.max : maximumSize + 1
            var capacity = min(limit, max(Self.minimumInitialCapacity, source.count.multipliedClamped(by: 4)))
            var output: [UInt8] = []
            while true {
                largestBufferCapacity = max(largestBufferCapacity, capacity)
                var outcome = Outcome.needsRoom
                let previous = output
                output = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                    count = previous.withUnsafeBufferPointer { buffer.initialize(fromContentsOf: $0) }
                    outcome = run.inflate(into: buffer, count: &count)
                }
                outputBytes = output.count
                if output.count > maximumSize { throw .tooLarge(format, limit: maximumSize) }
                switch outcome {
                case .finished: return output
                case .failed(let error): throw error
                case .needsRoom: capacity = min(limit, capacity.multipliedClamped(by: 2))
                }
            }
        }
    }
}

extension Inflater {
    /// How one pass over an output buffer ended.
    private enum Outcome {
        case finished
        case needsRoom
        case failed(PayloadError)
    }

    /// zlib's stream for one payload, with how much of the input has been handed to it.
    private struct Run {
        let stream: UnsafeMutablePointer<z_stream>
        let source: UnsafeBufferPointer<UInt8>
        let format: PayloadFormat
        /// Bytes of `source` given to zlib so far; `avail_in` of them are not yet read.
        var fed = 0

        /// Bytes of `source` that zlib has read.
        var consumed: Int { fed - Int(stream.pointee.avail_in) }

        /// Inflates into `buffer` after its first `count` bytes until the stream ends, fails,
        /// or the buffer is full; `count` follows what zlib writes.
        mutating func inflate(into buffer: UnsafeMutableBufferPointer<UInt8>, count: inout Int) -> Outcome {
            while true {
                let room = stream.offerWindows(source: source, fed: &fed, buffer: buffer, count: count)
                let status = CZlib.inflate(stream, Z_NO_FLUSH)
                count += room - Int(stream.pointee.avail_out)

                switch status {
                case Z_OK:
                    continue
                case Z_STREAM_END:
                    let rest = source.count - consumed
                    if rest == 0 { return .finished }
                    // gzip allows members one after another; anything else after the end is an error.
                    if format == .gzip && rest >= 2 && source[consumed] == 0x1f && source[consumed + 1] == 0x8b {
                        inflateReset(stream)
                        continue
                    }
                    return .failed(.trailingData(format, end: consumed, length: source.count))
                case Z_BUF_ERROR:
                    // No progress: either the buffer is full, or every byte was read and zlib wants more.
                    if stream.pointee.avail_out == 0 { return .needsRoom }
                    return .failed(.truncated(format, length: source.count))
                case Z_NEED_DICT:
                    return .failed(.corrupt(
                        format, offset: consumed, length: source.count,
                        reason: "it asks for a preset dictionary, which payloads never use"
                    ))
                case Z_DATA_ERROR:
                    return .failed(dataError())
                case Z_MEM_ERROR:
                    fatalError("zlib ran out of memory while inflating a payload")
                default:
                    fatalError("zlib's inflate returned unexpected status \(status)")
                }
            }
        }

        /// Sorts zlib's Z_DATA_ERROR into a checksum mismatch or corrupt data, by zlib's message.
        private func dataError() -> PayloadError {
            let reason = stream.pointee.msg.map { String(cString: $0) } ?? "invalid deflate data"
            switch reason {
            case "incorrect data check":
                let checksum = format == .gzip ? "CRC-32" : "Adler-32"
                return .checksumMismatch(format, "\(checksum) checksum does not match its inflated content")
            case "incorrect length check":
                return .checksumMismatch(format, "recorded length does not match its inflated length")
            case "header crc mismatch":
                return .checksumMismatch(format, "header CRC does not match its header")
            default:
                return .corrupt(format, offset: consumed, length: source.count, reason: reason)
            }
        }
    }
}

extension Int {
    /// `self * factor`, or `Int.max` when that overflows.
    func multipliedClamped(by factor: Int) -> Int {
        let (product, overflow) = multipliedReportingOverflow(by: factor)
        return overflow ? .max : product
    }
}
