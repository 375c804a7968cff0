/// Why a stored payload could not be decoded.
///
/// The ``code`` is for programs, the ``message`` for a person: one line that says what is wrong
/// with this payload, for example "zlib stream is truncated after 1234 of its bytes (no end-of-stream marker)".
public struct PayloadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem.
    public enum Code: String, Sendable, Hashable {
        /// The payload has no bytes.
        case empty
        /// The input ends before the compressed stream does.
        case truncated
        /// The compressed data is invalid.
        case corrupt
        /// The stream decoded, but its checksum or recorded length does not match what it decoded to.
        case checksumMismatch
        /// The decoded size would exceed ``PayloadCodec/maximumSize``.
        case tooLarge
        /// Bytes follow the end of the compressed stream.
        case trailingData
    }

    /// The kind of problem.
    public let code: Code
    /// The format the payload was read as, or `nil` when there was nothing to read.
    public let format: PayloadFormat?
    /// What is wrong, in one line written for a person.
    public let message: String

    /// Creates an error; ``PayloadCodec`` makes these, other code usually only reads them.
    public init(code: Code, format: PayloadFormat?, message: String) {
        self.code = code
        self.format = format
        self.message = message
    }

    /// The ``message``.
    public var description: String { message }
}

// The wording of every error, kept in one place.
extension PayloadError {
    static func empty() -> PayloadError {
        PayloadError(code: .empty, format: nil, message: "payload is empty (0 bytes)")
    }

    static func truncated(_ format: PayloadFormat, length: Int) -> PayloadError {
        PayloadError(
            code: .truncated, format: format,
            message: "\(format.streamName) is truncated after \(length) of its bytes (no end-of-stream marker)"
        )
    }

    static func corrupt(_ format: PayloadFormat, offset: Int, length: Int, reason: String) -> PayloadError {
        PayloadError(
            code: .corrupt, format: format,
            message: "\(format.streamName) is corrupt near byte \(offset) of \(length): \(reason)"
        )
    }

    static func checksumMismatch(_ format: PayloadFormat, _ what: String) -> PayloadError {
        PayloadError(code: .checksumMismatch, format: format, message: "\(format.streamName)'s \(what)")
    }

    static func tooLarge(_ format: PayloadFormat, limit: Int) -> PayloadError {
        let subject = format == .plain ? "size of the plain JSON payload" : "inflated size of the \(format.streamName)"
        return PayloadError(
            code: .tooLarge, format: format,
            message: "\(subject) exceeds the \(byteCount(limit)) limit"
        )
    }

    static func trailingData(_ format: PayloadFormat, end: Int, length: Int) -> PayloadError {
        PayloadError(
            code: .trailingData, format: format,
            message: "\(format.streamName) ends at byte \(end) but the payload has \(length) bytes: \(byteCount(length - end)) of trailing data"
        )
    }

    /// "64 MiB", "12 KiB", "1 byte", "1000 bytes".
    private static func byteCount(_ count: Int) -> String {
        let kib = 1024, mib = 1024 * 1024
        if count > 0 && count % mib == 0 { return "\(count / mib) MiB" }
        if count > 0 && count % kib == 0 { return "\(count / kib) KiB" }
        return count == 1 ? "1 byte" : "\(count) bytes"
    }
}
