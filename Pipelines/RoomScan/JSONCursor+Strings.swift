/// Strings: skipped in place, word by word, and decoded only when the caller needs their text.
extension JSONCursor {
    /// A string's bytes between its quotes, escapes still encoded.
    struct RawString {
        var range: Range<Int>
        var hasEscapes: Bool
    }

    /// An object member's key: its bytes in the text, or its decoded bytes when it has escapes.
    struct Key {
        var range: Range<Int>
        var unescaped: [UInt8]?
    }

    /// Moves past a string, checking its escapes and its UTF-8 and rejecting raw control
    /// characters, and returns where its bytes are.
    ///
    /// Eight bytes are checked at a time until one needs a closer look, so skipping the long
    /// base64 `coreModel` costs little more than reading its memory once.
    mutating func scanString() throws(RoomJSONError) -> RawString {
        skipWhitespace()
        guard current == .quote else { throw failure(expected: "a string") }
        let opening = position
        let start = position + 1
        var hasEscapes = false
        // `current` was a quote, so the buffer has an address.
        let base = bytes.baseAddress!
        let count = bytes.count
        // Kept in a local, and stored back in `position` only when leaving the loop.
        var index = start
        while true {
            // Jump to the first byte that needs a look, eight bytes at a time.
            while index &+ 8 <= count {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                let mask = Self.closerLookMask(word)
                if mask != 0 {
                    index &+= mask.trailingZeroBitCount &>> 3
                    break
                }
                index &+= 8
            }
            guard index < count else {
                throw RoomJSONError("unterminated string", at: opening)
            }
            switch base[index] {
            case .quote:
                position = index + 1
                return RawString(range: start ..< index, hasEscapes: hasEscapes)
            case .backslash:
                hasEscapes = true
                // `\/`, by far the most common escape in exports, is handled in line.
                if index + 1 < count, base[index + 1] == .slash {
                    index += 2
                } else {
                    position = index
                    try skipEscape()
                    index = position
                }
            case 0 ..< 0x20:
                position = index
                throw failure("unescaped control character 0x\(String(base[index], radix: 16, uppercase: true)) in a string")
            case 0x80...:
                position = index
                try skipUTF8Sequence()
                index = position
            default:
                index += 1
            }
        }
    }

    /// The high bit of each of the eight bytes (first byte lowest) that is a quote, a backslash, a
    /// control character or not ASCII, and possibly of bytes after the first such one.
    @inline(__always)
    private static func closerLookMask(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* UInt64(UInt8.quote))
        let backslashes = word ^ (ones &* UInt64(UInt8.backslash))
        // A byte's high bit is set when it matches; a borrow can only mark bytes after a match.
        let isQuote = (quotes &- ones) & ~quotes
        let isBackslash = (backslashes &- ones) & ~backslashes
        let isControl = (word &- ones &* 0x20) & ~word
        return (isQuote | isBackslash | isControl | word) & highBits
    }

    /// Moves past one escape sequence, starting at its backslash.
    private mutating func skipEscape() throws(RoomJSONError) {
        let escaped = position + 1 < bytes.count ? bytes[position + 1] : 0
        switch escaped {
        case .quote, .backslash, .slash, UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
             UInt8(ascii: "r"), UInt8(ascii: "t"):
            position += 2
        case UInt8(ascii: "u"):
            _ = try hexCodeUnit(at: position + 2)
            position += 6
        default:
            throw failure("invalid escape sequence in a string")
        }
    }

    /// The UTF-16 code unit spelled by the four hex digits at `offset`.
    private func hexCodeUnit(at offset: Int) throws(RoomJSONError) -> UInt16 {
        guard offset + 4 <= bytes.count else { throw RoomJSONError("unterminated \\u escape", at: offset) }
        var unit: UInt16 = 0
        for index in offset ..< offset + 4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0") ... UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a") ... UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A") ... UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw RoomJSONError("invalid hex digit in a \\u escape", at: index)
            }
            unit = unit << 4 | UInt16(digit)
        }
        return unit
    }

    /// Moves past one well-formed UTF-8 sequence of two to four bytes, starting at its lead byte.
    private mutating func skipUTF8Sequence() throws(RoomJSONError) {
        let lead = bytes[position]
        // The length of the sequence and the range its second byte must be in.
        let length: Int
        var second: ClosedRange<UInt8> = 0x80 ... 0xBF
        switch lead {
        case 0xC2 ... 0xDF: length = 2
        case 0xE0: length = 3; second = 0xA0 ... 0xBF
        case 0xE1 ... 0xEC, 0xEE ... 0xEF: length = 3
        case 0xED: length = 3; second = 0x80 ... 0x9F
        case 0xF0: length = 4; second = 0x90 ... 0xBF
        case 0xF1 ... 0xF3: length = 4
        case 0xF4: length = 4; second = 0x80 ... 0x8F
        default: throw failure("invalid UTF-8 in a string")
        }
        guard position + length <= bytes.count, second.contains(bytes[position + 1]) else {
            throw failure("invalid UTF-8 in a string")
        }
        for index in position + 2 ..< position + length where !(0x80 ... 0xBF).contains(bytes[index]) {
            throw failure("invalid UTF-8 in a string")
        }
        position += length
    }

    /// Reads a string and returns its text.
    mutating func readString() throws(RoomJSONError) -> String {
        let raw = try scanString()
        guard raw.hasEscapes else {
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[raw.range]), as: UTF8.self)
        }
        return String(decoding: try unescape(raw), as: UTF8.self)
    }

    /// Reads an object member's key and the colon after it.
    mutating func readKey() throws(RoomJSONError) -> Key {
        let raw = try scanString()
        let key = Key(range: raw.range, unescaped: raw.hasEscapes ? try unescape(raw) : nil)
        skipWhitespace()
        guard current == .colon else { throw failure(expected: "':' after an object key") }
        position += 1
        return key
    }

    /// Whether `key` is `name`.
    func key(_ key: Key, is name: StaticString) -> Bool {
        name.withUTF8Buffer { name in
            if let unescaped = key.unescaped {
                return unescaped.elementsEqual(name)
            }
            return key.range.count == name.count && UnsafeBufferPointer(rebasing: bytes[key.range]).elementsEqual(name)
        }
    }

    /// The text of `key`.
    func name(of key: Key) -> String {
        if let unescaped = key.unescaped {
            return String(decoding: unescaped, as: UTF8.self)
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[key.range]), as: UTF8.self)
    }

    /// The UTF-8 bytes a scanned string with escapes stands for. Escaped surrogates must pair up,
    /// as `JSONDecoder` requires of the strings it decodes.
    private func unescape(_ raw: RawString) throws(RoomJSONError) -> [UInt8] {
        var text: [UInt8] = []
        text.reserveCapacity(raw.range.count)
        var index = raw.range.lowerBound
        while index < raw.range.upperBound {
            let byte = bytes[index]
            guard byte == .backslash else {
                text.append(byte)
                index += 1
                continue
            }
            // `scanString` checked the escape's syntax.
            let escaped = bytes[index + 1]
            index += 2
            switch escaped {
            case UInt8(ascii: "b"): text.append(0x08)
            case UInt8(ascii: "f"): text.append(0x0C)
            case UInt8(ascii: "n"): text.append(.lineFeed)
            case UInt8(ascii: "r"): text.append(.carriageReturn)
            case UInt8(ascii: "t"): text.append(.tab)
            case UInt8(ascii: "u"):
                let unit = try hexCodeUnit(at: index)
                index += 4
                var scalar = UInt32(unit)
                if UTF16.isTrailSurrogate(unit) {
                    throw RoomJSONError("unpaired surrogate in a \\u escape", at: index - 6)
                }
                if UTF16.isLeadSurrogate(unit) {
                    let hasEscapeNext = index + 6 <= raw.range.upperBound && bytes[index] == .backslash
                        && bytes[index + 1] == UInt8(ascii: "u")
                    let trail = hasEscapeNext ? try hexCodeUnit(at: index + 2) : 0
                    guard UTF16.isTrailSurrogate(trail) else {
                        throw RoomJSONError("unpaired surrogate in a \\u escape", at: index - 6)
                    }
                    scalar = 0x10000 + (UInt32(unit) - 0xD800) << 10 + (UInt32(trail) - 0xDC00)
                    index += 6
                }
                // Not a surrogate, so a valid scalar.
                text.append(contentsOf: Unicode.Scalar(scalar)!.utf8)
            default: text.append(escaped)
            }
        }
        return text
    }
}
