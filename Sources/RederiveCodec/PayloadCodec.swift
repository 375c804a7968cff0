import CZlib

/// Reads and writes stored payloads: JSON that is usually compressed.
///
/// Decoding detects the format from the bytes (see ``detect(_:)``) and inflates with a cap on the
/// decoded size, so a decompression bomb fails with ``PayloadError/Code/tooLarge`` after at most
/// ``maximumSize`` bytes instead of exhausting memory. Encoding writes zlib unless told otherwise.
///
/// Whole payloads inflate with libdeflate where the system has it, and with zlib otherwise; the
/// results, errors and digests are the same either way.
///
/// ```swift
/// let json = Array(#"{"rooms":[]}"#.utf8)
/// let stored = PayloadCodec.encode(json)                 // zlib, level 6
/// let codec = PayloadCodec(maximumSize: 16 << 20)        // 16 MiB cap on decoded payloads
/// let decoded = try codec.decode(stored)                 // == json
/// let source = PayloadCodec.digest(stored)               // records which payload a value came from
/// ```
public struct PayloadCodec: Sendable {
    /// The default cap on a decoded payload: 64 MiB.
    public static let defaultMaximumSize: Int = 64 << 20

    /// The cap on the decoded size of a payload, in bytes: inflated data for compressed formats,
    /// the payload itself for plain JSON.
    public var maximumSize: Int

    /// The library that inflates: libdeflate when it loaded, unless a test chose zlib.
    package var library: InflateLibrary

    /// The decompressor and the size guess reused from one payload to the next: give each worker a
    /// codec of its own and it allocates one decompressor, and inflates each payload once.
    private let scratch = InflateScratch()

    /// Creates a codec that refuses payloads decoding to more than `maximumSize` bytes.
    public init(maximumSize: Int = PayloadCodec.defaultMaximumSize) {
        self.init(maximumSize: maximumSize, library: .preferred)
    }

    /// Creates a codec that inflates with `library`; libdeflate falls back to zlib where it did not load.
    package init(maximumSize: Int = PayloadCodec.defaultMaximumSize, library: InflateLibrary) {
        self.maximumSize = maximumSize
        self.library = library
    }

    /// Returns the JSON bytes of a stored payload in any of the four formats.
    ///
    /// Compressed payloads are returned inflated, whatever they contain (checking that it is
    /// JSON is the reader's job); plain payloads are returned unchanged.
    ///
    /// A payload whose first two bytes look like a zlib header but that fails as zlib is retried
    /// as raw deflate, because raw deflate can begin with such bytes; if that fails too,
    /// the zlib error is thrown. A payload that fails as raw deflate but starts like JSON text
    /// (for example JSON cut short, which plain detection rejects for its ending) is returned as
    /// plain, so that its decoder reports the JSON problem rather than a compression one.
    ///
    /// - Throws: ``PayloadError`` saying what is wrong: empty, truncated, corrupt, a checksum
    ///   mismatch, larger than ``maximumSize``, or followed by trailing data.
    public func decode(_ bytes: [UInt8]) throws(PayloadError) -> [UInt8] {
        var work = InflationWork()
        return try decode(bytes, work: &work)
    }

    /// ``decode(_:)``, adding to `work` the output that inflating wrote.
    package func decode(_ bytes: [UInt8], work: inout InflationWork) throws(PayloadError) -> [UInt8] {
        guard let format = Self.detect(bytes) else { throw .empty() }
        switch format {
        case .plain:
            guard bytes.count <= maximumSize else { throw .tooLarge(.plain, limit: maximumSize) }
            return bytes
        case .gzip:
            return try inflate(bytes, as: format, work: &work)
        case .deflate:
            do throws(PayloadError) {
                return try inflate(bytes, as: .deflate, work: &work)
            } catch where Self.startsLikeJSONText(bytes) && error.code != .tooLarge {
                // Not deflate after all, but JSON text that is cut short or malformed at its end:
                // hand it over as plain so that the decoder names what is wrong with it.
                guard bytes.count <= maximumSize else { throw .tooLarge(.plain, limit: maximumSize) }
                return bytes
            }
        case .zlib:
            do throws(PayloadError) {
                return try inflate(bytes, as: .zlib, work: &work)
            } catch let zlibError where zlibError.code == .tooLarge {
                // The stream was good for at least maximumSize bytes: it is zlib, and too large.
                throw zlibError
            } catch let zlibError {
                do throws(PayloadError) {
                    return try inflate(bytes, as: .deflate, work: &work)
                } catch let deflateError where deflateError.code == .tooLarge {
                    throw deflateError
                } catch {
                    throw zlibError
                }
            }
        }
    }

    private func inflate(_ bytes: [UInt8], as format: PayloadFormat, work: inout InflationWork) throws(PayloadError) -> [UInt8] {
        if library == .libdeflate, let libdeflate = LibDeflate.loaded,
           let inflated = try WholeBufferInflater.inflate(
               bytes, format: format, maximumSize: maximumSize, with: libdeflate, work: &work, scratch: scratch
           ) {
            return inflated
        }
        // zlib's streaming inflate, for what libdeflate cannot settle: it names the problem exactly.
        var inflater = Inflater(format: format, maximumSize: maximumSize)
        defer { work.outputBytes += inflater.outputBytes }
        return try inflater.inflate(bytes)
    }

    /// Compresses `bytes` for storage.
    ///
    /// Writers use ``PayloadFormat/zlib``, the default. ``PayloadFormat/deflate`` and
    /// ``PayloadFormat/gzip`` exist so that tests and generators can produce what other programs
    /// write; ``PayloadFormat/plain`` returns the bytes unchanged.
    ///
    /// - Parameters:
    ///   - bytes: The JSON (or any bytes) to store.
    ///   - format: The wrapper to write.
    ///   - level: zlib's compression level, 0 (store) to 9 (smallest); negative means zlib's default.
    public static func encode(_ bytes: [UInt8], as format: PayloadFormat = .zlib, level: Int32 = 6) -> [UInt8] {
        format == .plain ? bytes : Deflater.deflate(bytes, format: format, level: level)
    }

    /// A cheap 64-bit digest of stored bytes: `(byte count << 32) | CRC-32`.
    ///
    /// Recorded beside a derived value to say which payload it was derived from. It is not a
    /// cryptographic hash: it only tells apart versions of the same row's payload. The byte count
    /// keeps its low 32 bits.
    public static func digest(_ bytes: [UInt8]) -> Int64 {
        digest(bytes, using: .preferred)
    }

    /// ``digest(_:)`` computed by `library`: the same value whichever computes it, since digests are stored.
    package static func digest(_ bytes: [UInt8], using library: InflateLibrary) -> Int64 {
        let crc = bytes.withUnsafeBufferPointer { buffer -> UInt32 in
            // libdeflate's CRC-32 (carry-less multiplication where the CPU has it) costs a fraction of
            // zlib's on payloads of a hundred kilobytes; both compute the CRC-32 of zlib and gzip.
            if library == .libdeflate, let libdeflate = LibDeflate.loaded {
                return libdeflate.crc32(0, buffer.baseAddress, buffer.count)
            }
            guard let base = buffer.baseAddress else { return 0 }
            return UInt32(truncatingIfNeeded: crc32_z(0, base, buffer.count))
        }
        return Int64(bitPattern: UInt64(truncatingIfNeeded: bytes.count) << 32 | UInt64(crc))
    }
}
