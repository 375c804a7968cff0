extension PayloadCodec {
    /// Detects the format of a stored payload from its bytes, or returns `nil` for an empty one.
    ///
    /// In order:
    /// - ``PayloadFormat/zlib`` when the first two bytes are an RFC 1950 header: compression
    ///   method 8, a window of at most 32 KiB (CINFO ≤ 7), and a header checksum divisible by 31;
    /// - ``PayloadFormat/gzip`` when the payload starts with `1f 8b 08`;
    /// - ``PayloadFormat/plain`` when it reads as JSON text: after whitespace (and an optional
    ///   UTF-8 byte order mark) it starts with `{` or `[`, ends with `}` or `]` before trailing
    ///   whitespace, and its first and last 64 bytes are text without control characters;
    /// - ``PayloadFormat/deflate`` otherwise, which is what `NSData.compressed(using: .zlib)` writes.
    ///
    /// Raw deflate can start with bytes that pass the zlib test or look like `{`; ``decode(_:)``
    /// retries the first case as raw deflate, and the text checks keep the second from passing as plain.
    ///
    /// ```swift
    /// PayloadCodec.detect(PayloadCodec.encode(json))  // .zlib
    /// PayloadCodec.detect(Array("[1, 2]".utf8))      // .plain
    /// PayloadCodec.detect([])                         // nil
    /// ```
    public static func detect(_ bytes: [UInt8]) -> PayloadFormat? {
        guard let first = bytes.first else { return nil }
        if bytes.count >= 2 && isZlibHeader(first, bytes[1]) { return .zlib }
        if bytes.count >= 3 && bytes[0] == 0x1f && bytes[1] == 0x8b && bytes[2] == 0x08 { return .gzip }
        if looksLikeJSONText(bytes) { return .plain }
        return .deflate
    }

    /// RFC 1950: CM (low nibble of CMF) is 8, CINFO (high nibble) is at most 7, and CMF·256 + FLG is a multiple of 31.
    private static func isZlibHeader(_ cmf: UInt8, _ flg: UInt8) -> Bool {
        cmf & 0x0f == 8 && cmf >> 4 <= 7 && (UInt16(cmf) << 8 | UInt16(flg)) % 31 == 0
    }

    /// Whether `bytes` is shaped like a JSON object or array in UTF-8, checking only its ends
    /// so that the cost does not grow with the payload.
    private static func looksLikeJSONText(_ bytes: [UInt8]) -> Bool {
        var start = bytes.startIndex
        if bytes.starts(with: [0xef, 0xbb, 0xbf]) { start += 3 }
        guard let first = bytes[start...].firstIndex(where: { !isWhitespace($0) }),
              let last = bytes.lastIndex(where: { !isWhitespace($0) }),
              bytes[first] == UInt8(ascii: "{") || bytes[first] == UInt8(ascii: "["),
              bytes[last] == UInt8(ascii: "}") || bytes[last] == UInt8(ascii: "]")
        else { return false }
        let head = bytes[first..<min(first + 64, last + 1)]
        let tail = bytes[max(first, last - 63)...last]
        return isText(head) && isText(tail)
    }

    /// Whether `bytes` starts like JSON text: `{` or `[` after whitespace, and its first 64 bytes are text.
    static func startsLikeJSONText(_ bytes: [UInt8]) -> Bool {
        var start = bytes.startIndex
        if bytes.starts(with: [0xef, 0xbb, 0xbf]) { start += 3 }
        guard let first = bytes[start...].firstIndex(where: { !isWhitespace($0) }),
              bytes[first] == UInt8(ascii: "{") || bytes[first] == UInt8(ascii: "[")
        else { return false }
        return isText(bytes[first..<min(first + 64, bytes.endIndex)])
    }

    /// JSON's insignificant whitespace: space, tab, line feed, carriage return.
    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0a || byte == 0x0d
    }

    /// Whether a window of the payload is UTF-8 text without control characters other than whitespace.
    /// A multi-byte sequence may be cut at either edge of the window.
    private static func isText(_ window: ArraySlice<UInt8>) -> Bool {
        var index = window.startIndex
        // Skip continuation bytes of a sequence that began before the window.
        while index < window.endIndex && index < window.startIndex + 3 && window[index] & 0xc0 == 0x80 {
            index += 1
        }
        while index < window.endIndex {
            let byte = window[index]
            let length: Int
            switch byte {
            case 0x00..<0x20: guard isWhitespace(byte) else { return false }; length = 1
            case 0x20..<0x80: length = 1
            case 0xc2...0xdf: length = 2
            case 0xe0...0xef: length = 3
            case 0xf0...0xf4: length = 4
            default: return false  // a stray continuation byte, or a byte UTF-8 never uses
            }
            let end = min(index + length, window.endIndex)
            guard window[(index + 1)..<end].allSatisfy({ $0 & 0xc0 == 0x80 }) else { return false }
            index = end
        }
        return true
    }
}
