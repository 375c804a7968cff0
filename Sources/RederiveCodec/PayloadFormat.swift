/// How a stored payload is encoded.
///
/// Rederive writes ``zlib``; it reads all four, because payloads also arrive from other programs:
/// Apple's `NSData.compressed(using: .zlib)` writes ``deflate`` (no header, no checksum),
/// command-line tools write ``gzip``, and older rows hold ``plain`` JSON text.
/// ``PayloadCodec/detect(_:)`` tells them apart from the bytes alone.
public enum PayloadFormat: String, Sendable, CaseIterable {
    /// A zlib stream (RFC 1950): a two-byte header, deflate data, and an Adler-32 checksum.
    case zlib
    /// Raw deflate data (RFC 1951) with no header and no checksum.
    case deflate
    /// A gzip stream (RFC 1952), possibly several members one after another.
    case gzip
    /// Uncompressed JSON text.
    case plain
}

extension PayloadFormat {
    /// zlib's `windowBits` for this format: 15 with the zlib wrapper, -15 for raw deflate, 31 for gzip.
    var windowBits: Int32 {
        switch self {
        case .zlib: 15
        case .deflate: -15
        case .gzip: 31
        case .plain: preconditionFailure("plain payloads are neither inflated nor deflated")
        }
    }

    /// How error messages name a payload in this format.
    var streamName: String {
        switch self {
        case .zlib: "zlib stream"
        case .deflate: "raw deflate stream"
        case .gzip: "gzip stream"
        case .plain: "plain JSON payload"
        }
    }
}
