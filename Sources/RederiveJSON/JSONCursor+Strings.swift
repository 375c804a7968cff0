/// Strings: skipped in place, word by word, and decoded only when the caller needs their text.
extension JSONCursor {
    /// A string's bytes between its quotes, escapes still encoded.
    @usableFromInline package struct RawString {
        /// The offsets of the bytes between the quotes.
        @usableFromInline package var range: Range<Int>
        /// Whether the bytes hold a backslash escape.
        @usableFromInline package var hasEscapes: Bool

        @inlinable init(range: Range<Int>, hasEscapes: Bool) {
            self.range = range
            self.hasEscapes = hasEscapes
        }
    }

    /// An object member's key: its bytes in the text, or its decoded bytes when it has escapes.
    @usableFromInline package struct Key {
        /// The offsets of the key's bytes between its quotes.
        @usableFromInline package var range: Range<Int>
        /// The key's bytes once decoded, when it has escapes.
        @usableFromInline package var unescaped: [UInt8]?

        @inlinable init(range: Range<Int>, unescaped: [UInt8]?) {
            self.range = range
            self.unescaped = unescaped
        }
    }

    /// Moves past a string, checking its escapes and its UTF-8 and rejecting raw control
    /// characters, and returns where its bytes are.
    ///
    /// Thirty-two bytes are checked at a time until one needs a closer look, and `\/` (base64's
    /// escaped slash) does not need one, so skipping the long base64 `coreModel` costs little more
    /// than reading its memory once.
    @inlinable
    package mutating func scanString() throws(JSONError) -> RawString {
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
            index = Self.firstByteNeedingALook(in: base, from: index, count: count, hasEscapes: &hasEscapes)
            // Near the end of the text, where thirty-two bytes and one more are not left: eight at a time.
            while index &+ 8 <= count {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                let mask = Self.closerLookMask(word)
                if mask != 0 {
                    index &+= mask.trailingZeroBitCount &>> 3
                    break
                }
                index &+= 8
            }
            guard index < count else { throw unterminatedString(from: opening) }
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
                    try skipEscape(inStringFrom: opening)
                    index = position
                }
            case 0 ..< 0x20:
                position = index
                throw failure("control character U+00\(Self.hex(base[index])) in a string; it must be escaped")
            case 0x80...:
                position = index
                try skipUTF8Sequence()
                index = position
            default:
                index += 1
            }
        }
    }

    /// The offset of the first byte at or after `index` that a string's scan must look at (a quote, a
    /// backslash not followed by `/`, a control character or a byte that is not ASCII), or where fewer
    /// than thirty-three bytes are left. Sets `hasEscapes` when a `\/` comes before that byte.
    ///
    /// Each step checks thirty-two bytes as two vectors of sixteen, and the same bytes from one on,
    /// which tell whether a backslash starts `\/`. A backslash passed that way cannot be the second of
    /// `\\`: the first would have stopped the scan before it.
    @inlinable @inline(__always)
    static func firstByteNeedingALook(
        in base: UnsafePointer<UInt8>, from index: Int, count: Int, hasEscapes: inout Bool
    ) -> Int {
        var index = index
        let raw = UnsafeRawPointer(base)
        while index &+ 33 <= count {
            let low = StringBytes(raw + index)
            let high = StringBytes(raw + (index &+ 16))
            let look = low.look | high.look
            guard look[0] | look[1] != 0 else {
                let escapedSlash = low.escapedSlash | high.escapedSlash
                if escapedSlash[0] | escapedSlash[1] != 0 { hasEscapes = true }
                index &+= 32
                continue
            }
            // Only the `\/` before the first byte that needs a look belong to this string.
            if let found = firstLook(low.look[0], low.escapedSlash[0], at: index, &hasEscapes) { return found }
            if let found = firstLook(low.look[1], low.escapedSlash[1], at: index &+ 8, &hasEscapes) { return found }
            if let found = firstLook(high.look[0], high.escapedSlash[0], at: index &+ 16, &hasEscapes) { return found }
            return firstLook(high.look[1], high.escapedSlash[1], at: index &+ 24, &hasEscapes) ?? index &+ 32
        }
        return index
    }

    /// The offset of the first byte of eight at `index` that needs a look, if one does; sets
    /// `hasEscapes` when a `\/` comes before it, or among all eight when none does.
    @inlinable @inline(__always)
    static func firstLook(_ look: UInt64, _ escapedSlash: UInt64, at index: Int, _ hasEscapes: inout Bool) -> Int? {
        let before = look == 0 ? UInt64.max : (look & (0 &- look)) &- 1
        if escapedSlash & before != 0 { hasEscapes = true }
        return look == 0 ? nil : index &+ look.trailingZeroBitCount &>> 3
    }

    /// Sixteen bytes of a string, as two words each (first byte lowest) of the bytes that need a look
    /// and of the backslashes that start `\/`, each such byte all ones. Compared as vectors, which the
    /// compiler turns into a few instructions for all sixteen; reads the byte after them too.
    @usableFromInline
    struct StringBytes {
        @usableFromInline let look: SIMD2<UInt64>
        @usableFromInline let escapedSlash: SIMD2<UInt64>

        @inlinable @inline(__always)
        init(_ bytes: UnsafeRawPointer) {
            let these = bytes.loadUnaligned(as: SIMD16<UInt8>.self)
            let following = (bytes + 1).loadUnaligned(as: SIMD16<UInt8>.self)
            // Every vector's type is spelled out: left to inference, `SIMD16(repeating:)` makes the
            // compiler choose the protocol's generic comparisons, a loop over the lanes 200 times slower.
            // Signed, a byte below 0x20 is a control character and one below zero is not ASCII.
            let controlOrNotASCII = SIMD16<Int8>(truncatingIfNeeded: these) .< SIMD16<Int8>(repeating: 0x20)
            let quotes = these .== SIMD16<UInt8>(repeating: .quote)
            let backslashes = these .== SIMD16<UInt8>(repeating: .backslash)
            let slashesNext = following .== SIMD16<UInt8>(repeating: .slash)
            look = Self.words(controlOrNotASCII .| quotes .| (backslashes .& .!slashesNext))
            escapedSlash = Self.words(backslashes .& slashesNext)
        }

        /// A mask's sixteen lanes as two words, the first lane lowest whatever the byte order.
        @inlinable @inline(__always)
        static func words(_ mask: SIMDMask<SIMD16<Int8>>) -> SIMD2<UInt64> {
            let words = unsafeBitCast(mask, to: SIMD2<UInt64>.self)
            return SIMD2(UInt64(littleEndian: words[0]), UInt64(littleEndian: words[1]))
        }
    }

    /// The high bit of each of the eight bytes (first byte lowest) that is a quote, a backslash, a
    /// control character or not ASCII, and possibly of bytes after the first such one.
    @inlinable @inline(__always)
    static func closerLookMask(_ word: UInt64) -> UInt64 {
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

    /// The error for a string that the end of the text cuts short.
    @usableFromInline
    func unterminatedString(from opening: Int) -> JSONError {
        JSONError("the file ends inside the string that starts at byte \(opening)", at: bytes.count)
    }

    /// Moves past one escape sequence, starting at its backslash, in the string that opens at `opening`.
    @usableFromInline
    mutating func skipEscape(inStringFrom opening: Int) throws(JSONError) {
        position += 1
        guard position < bytes.count else { throw unterminatedString(from: opening) }
        switch bytes[position] {
        case .quote, .backslash, .slash, UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
             UInt8(ascii: "r"), UInt8(ascii: "t"):
            position += 1
        case UInt8(ascii: "u"):
            position += 1
            for _ in 0 ..< 4 {
                guard position < bytes.count else { throw unterminatedString(from: opening) }
                guard Self.hexDigit(bytes[position]) != nil else {
                    throw failure("\(foundCharacter) in a \\u escape, which takes four hexadecimal digits")
                }
                position += 1
            }
        default:
            throw failure("invalid escape \\\(foundCharacter) in a string")
        }
    }

    /// The value of a hexadecimal digit.
    @usableFromInline
    static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0") ... UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a") ... UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A") ... UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The UTF-16 code unit spelled by the four hex digits at `offset`, which ``scanString()`` checked.
    @usableFromInline
    func hexCodeUnit(at offset: Int) -> UInt16 {
        var unit: UInt16 = 0
        for index in offset ..< offset + 4 {
            unit = unit << 4 | UInt16(Self.hexDigit(bytes[index]) ?? 0)
        }
        return unit
    }

    /// Moves past one well-formed UTF-8 character of two to four bytes, starting at its lead byte: no
    /// overlong forms, surrogates, or code points past U+10FFFF.
    @usableFromInline
    mutating func skipUTF8Sequence() throws(JSONError) {
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
        default: throw failure("byte 0x\(Self.hex(lead)) is not UTF-8")
        }
        for offset in 1 ..< length {
            guard position + offset < bytes.count else {
                throw failure("a UTF-8 character is cut short by the end of the file")
            }
            let byte = bytes[position + offset]
            guard (offset == 1 ? second : 0x80 ... 0xBF).contains(byte) else {
                throw failure("bytes 0x\(Self.hex(lead)) 0x\(Self.hex(byte)) are not UTF-8")
            }
        }
        position += length
    }

    /// Reads a string and returns its text.
    @inlinable
    package mutating func readString() throws(JSONError) -> String {
        let raw = try scanString()
        guard raw.hasEscapes else {
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[raw.range]), as: UTF8.self)
        }
        return String(decoding: try unescape(raw), as: UTF8.self)
    }

    /// Reads an object member's key and the colon after it.
    @inlinable
    package mutating func readKey() throws(JSONError) -> Key {
        skipWhitespace()
        guard current == .quote else { throw failure(expectedSyntax: "a member name in double quotes") }
        let raw = try scanString()
        let key = Key(range: raw.range, unescaped: raw.hasEscapes ? try unescape(raw) : nil)
        skipWhitespace()
        guard current == .colon else { throw failure(expectedSyntax: "':' after a member name") }
        position += 1
        return key
    }

    /// Whether `key` is `name`.
    @inlinable
    package func key(_ key: Key, is name: StaticString) -> Bool {
        name.withUTF8Buffer { name in
            if let unescaped = key.unescaped {
                return unescaped.elementsEqual(name)
            }
            return key.range.count == name.count && UnsafeBufferPointer(rebasing: bytes[key.range]).elementsEqual(name)
        }
    }

    /// The text of `key`.
    @inlinable
    package func name(of key: Key) -> String {
        if let unescaped = key.unescaped {
            return String(decoding: unescaped, as: UTF8.self)
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[key.range]), as: UTF8.self)
    }

    /// The UTF-8 bytes a scanned string with escapes stands for. Escaped surrogates must pair up,
    /// as `JSONDecoder` requires of the strings it decodes.
    @usableFromInline
    func unescape(_ raw: RawString) throws(JSONError) -> [UInt8] {
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
                let unit = hexCodeUnit(at: index)
                index += 4
                var scalar = UInt32(unit)
                if UTF16.isTrailSurrogate(unit) {
                    throw JSONError("unpaired surrogate in a \\u escape", at: index - 6)
                }
                if UTF16.isLeadSurrogate(unit) {
                    let hasEscapeNext = index + 6 <= raw.range.upperBound && bytes[index] == .backslash
                        && bytes[index + 1] == UInt8(ascii: "u")
                    let trail = hasEscapeNext ? hexCodeUnit(at: index + 2) : 0
                    guard UTF16.isTrailSurrogate(trail) else {
                        throw JSONError("unpaired surrogate in a \\u escape", at: index - 6)
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
