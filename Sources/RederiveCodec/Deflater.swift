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
                    // avail_in and avail_out are 32-bit, so hand over at most 4 GiB at a time.
                    if stream.pointee.avail_in == 0 && fed < source.count {
                        let chunk = min(source.count - fed, Int(UInt32.max))
                        stream.pointee.next_in = UnsafeMutablePointer(mutating: source.baseAddress! + fed)
                        stream.pointee.avail_in = UInt32(chunk)
                        fed += chunk
                    }
                    let room = min(buffer.count - count, Int(UInt32.max))
                    stream.pointee.next_out = buffer.baseAddress! + count
                    stream.pointee.avail_out = UInt32(room)
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
