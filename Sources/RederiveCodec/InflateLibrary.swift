import CZlib

/// The library that inflates whole payloads and computes their CRC-32 digests, and that
/// ``PayloadCompressor`` compresses with.
///
/// Both give the same results: the same inflated bytes, the same errors (libdeflate hands whatever it
/// cannot settle exactly to zlib, which names the problem), the same digests (zlib and libdeflate
/// compute the same CRC-32). Only the speed differs, and the compressed bytes: both write valid zlib
/// streams of the same JSON, but not the same streams.
package enum InflateLibrary: String, Sendable, CaseIterable {
    /// libdeflate, loaded at run time (``LibDeflate``): about twice zlib's speed on whole payloads.
    case libdeflate
    /// zlib, which every machine that builds rederive has.
    case zlib

    /// What ``PayloadCodec`` uses unless told otherwise: libdeflate when it loaded, zlib otherwise.
    package static var preferred: InflateLibrary {
        LibDeflate.loaded == nil ? .zlib : .libdeflate
    }

    /// The libraries this process can use, for tests that run every path: zlib, and libdeflate when it loaded.
    package static var available: [InflateLibrary] {
        LibDeflate.loaded == nil ? [.zlib] : [.libdeflate, .zlib]
    }

    /// zlib's version, for instance `1.2.13`.
    package static var zlibVersion: String {
        String(cString: CZlib.zlibVersion())
    }
}
