import CZlib

/// One-shot deflate of a whole payload, in the zlib, raw deflate or gzip wrapper.
enum Deflater {
    /// Compresses `input` for `format` at `level` (0–9; anything negative means zlib's default, 6).
    static func deflate(_ input: [UInt8], format: PayloadFormat, level: Int32) -> [UInt8] {
        let level = level < 0 ? Z_DEFAULT_COMPRESSION : min(level, 9)

        // zlib keeps a pointer back to its z_stream, so the stream needs an address that never moves.
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        guard czlib_deflateInit2(stream, level, format.windowBits, 8, Z_DEFAULT_STRATEGY) == Z_OK else {
            fatalError("zlib could not allocate its deflate state")
        }
        defer { deflateEnd(stream) }

        // deflateBound is the most the whole output can take, so one buffer always suffices.
        let bound = Int(deflateBound(stream, UInt(input.count)))
        let output = input.withUnsafeBufferPointer { source in
            [UInt8](unsafeUninitializedCapacity: bound) { buffer, count in
                var fed = 0
                while true {
                    let room = stream.offerWindows(source: source, fed: &fed, buffer: buffer, count: count)
                    let flush = fed == source.count ? Z_FINISH : Z_NO_FLUSH
                    let status = CZlib.deflate(stream, flush)
                    count += room - Int(stream.pointee.avail_out)
                    if status == Z_STREAM_END { return }
                    precondition(status == Z_OK, "zlib's deflate returned unexpected status \(status)")
                }
            }
        }
        // The bound is far above what JSON compresses to; give stored payloads back the slack.
        guard output.capacity > 2 * output.count else { return output }
        return [UInt8](unsafeUninitializedCapacity: output.count) { buffer, count in
            count = output.withUnsafeBufferPointer { buffer.initialize(fromContentsOf: $0) }
        }
    }
}
