/// Compresses payloads to zlib streams for storage, reusing its state from one payload to the next.
///
/// With libdeflate (loaded at run time, see ``LibDeflate``) a whole buffer compresses in one call,
/// several times faster than zlib's streaming deflate at the same level; without it, or when told to
/// use zlib, ``Deflater`` does the work. Both write standard zlib streams that ``PayloadCodec`` inflates
/// with either library, but not the same bytes: libdeflate chooses other matches.
///
/// One compressor serves one thread at a time (libdeflate's compressor holds its working state);
/// give each worker its own.
///
/// ```swift
/// let compressor = PayloadCompressor()               // libdeflate when loaded, else zlib; level 6
/// let stored = compressor.zlib(json)
/// ```
package final class PayloadCompressor {
    /// The library that compresses: libdeflate only when it loaded and was asked for.
    package let library: InflateLibrary
    /// The compression level: zlib's 0 to 9 scale, which libdeflate's levels 0 to 9 follow.
    package let level: Int32
    private let libdeflate: LibDeflate?
    private let compressor: OpaquePointer?

    /// Creates a compressor for `library` at `level` (0–9; negative means 6). libdeflate falls back to
    /// zlib where it did not load.
    package init(level: Int32 = 6, library: InflateLibrary = .preferred) {
        self.level = level < 0 ? 6 : min(level, 9)
        if library == .libdeflate, let loaded = LibDeflate.loaded, let compressor = loaded.allocCompressor(self.level) {
            self.libdeflate = loaded
            self.compressor = compressor
            self.library = .libdeflate
        } else {
            self.libdeflate = nil
            self.compressor = nil
            self.library = .zlib
        }
    }

    deinit {
        if let libdeflate, let compressor { libdeflate.freeCompressor(compressor) }
    }

    /// `bytes` as a zlib stream.
    package func zlib(_ bytes: [UInt8]) -> [UInt8] {
        guard let libdeflate, let compressor else {
            return Deflater.deflate(bytes, format: .zlib, level: level)
        }
        // The bound covers any input, so the one call always fits; the output is then trimmed to size.
        let bound = libdeflate.zlibCompressBound(compressor, bytes.count)
        let output = bytes.withUnsafeBytes { source in
            [UInt8](unsafeUninitializedCapacity: bound) { buffer, count in
                count = libdeflate.zlibCompress(compressor, source.baseAddress, source.count, buffer.baseAddress, bound)
            }
        }
        precondition(!output.isEmpty, "libdeflate's zlib output did not fit its own bound")
        guard output.capacity > 2 * output.count else { return output }
        return [UInt8](unsafeUninitializedCapacity: output.count) { buffer, count in
            count = output.withUnsafeBufferPointer { buffer.initialize(fromContentsOf: $0) }
        }
    }
}
