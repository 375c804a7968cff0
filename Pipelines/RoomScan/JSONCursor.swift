/// A position in the UTF-8 text of a JSON document, read in a single forward pass.
///
/// The cursor reads values the caller asks for and skips the rest without materialising them,
/// checking what it skips against the JSON grammar. Every read checks bounds, so truncated or
/// hostile text only ever throws. Nesting deeper than ``depthLimit`` is rejected, and skipping
/// uses a heap stack rather than recursion, so depth cannot exhaust the call stack.
struct JSONCursor {
    /// The deepest nesting of arrays and objects accepted, counting the top-level value as 1: the
    /// same limit as Foundation's `JSONDecoder`.
    static let depthLimit = 512

    let bytes: UnsafeBufferPointer<UInt8>
    /// The offset of the next byte to read.
    var position = 0
    /// The open containers of the value being skipped: `true` for an object.
    var skipStack: [Bool] = []

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        // A UTF-8 byte order mark is allowed, as `JSONDecoder` allows it.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            position = 3
        }
    }

    /// The next byte, or 0 at the end of the text. A 0 byte is never valid outside a string, so
    /// the callers treat both alike and ``found`` tells them apart in messages.
    @inline(__always)
    var current: UInt8 {
        position < bytes.count ? bytes[position] : 0
    }

    /// Moves past spaces, tabs, line feeds and carriage returns.
    @inline(__always)
    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case .space, .tab, .lineFeed, .carriageReturn: position += 1
            default: return
            }
        }
    }

    /// An error at the current position.
    func failure(_ reason: String) -> RoomJSONError {
        RoomJSONError(reason, at: position)
    }

    /// An error saying what was expected and what the next value is instead.
    func failure(expected: String) -> RoomJSONError {
        failure("expected \(expected), found \(found)")
    }

    /// What starts at the current position, for messages.
    var found: String {
        guard position < bytes.count else { return "the end of the text" }
        let byte = bytes[position]
        switch byte {
        case .quote: return "a string"
        case .openBrace: return "an object"
        case .openBracket: return "an array"
        case .minus, .digitZero ... .digitNine: return "a number"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return "a boolean"
        case UInt8(ascii: "n"): return "null"
        case 0x21 ... 0x7E: return "'\(Character(Unicode.Scalar(byte)))'"
        default: return "unexpected byte 0x" + String(byte, radix: 16, uppercase: true)
        }
    }

    /// Checks that nothing but whitespace follows the top-level value.
    mutating func expectEnd() throws(RoomJSONError) {
        skipWhitespace()
        guard position == bytes.count else {
            throw failure("expected the end of the text after the top-level object, found \(found)")
        }
    }

    /// Reads `null` if it is next.
    mutating func readNull() throws(RoomJSONError) -> Bool {
        skipWhitespace()
        guard current == UInt8(ascii: "n") else { return false }
        try expectLiteral("null")
        return true
    }

    /// Reads exactly the given keyword.
    mutating func expectLiteral(_ literal: StaticString) throws(RoomJSONError) {
        let count = literal.utf8CodeUnitCount
        let matches = position + count <= bytes.count && literal.withUTF8Buffer { expected in
            expected.indices.allSatisfy { bytes[position + $0] == expected[$0] }
        }
        guard matches else { throw failure("invalid literal, expected \(literal)") }
        position += count
    }
}

// MARK: Containers

extension JSONCursor {
    /// Reads the `{` that opens an object; returns whether the object has members, and if not
    /// reads its `}` too.
    mutating func openObject() throws(RoomJSONError) -> Bool {
        skipWhitespace()
        guard current == .openBrace else { throw failure(expected: "an object") }
        position += 1
        skipWhitespace()
        guard current == .closeBrace else { return true }
        position += 1
        return false
    }

    /// After a member's value: reads the `,` before the next member and returns `true`, or the
    /// `}` that closes the object and returns `false`.
    mutating func nextMember() throws(RoomJSONError) -> Bool {
        skipWhitespace()
        switch current {
        case .comma:
            position += 1
            return true
        case .closeBrace:
            position += 1
            return false
        default:
            throw failure(expected: "',' or '}' after an object member")
        }
    }

    /// Reads the `[` that opens an array; returns whether the array has elements, and if not
    /// reads its `]` too.
    mutating func openArray() throws(RoomJSONError) -> Bool {
        skipWhitespace()
        guard current == .openBracket else { throw failure(expected: "an array") }
        position += 1
        skipWhitespace()
        guard current == .closeBracket else { return true }
        position += 1
        return false
    }

    /// After an element: reads the `,` before the next element and returns `true`, or the `]`
    /// that closes the array and returns `false`.
    mutating func nextElement() throws(RoomJSONError) -> Bool {
        skipWhitespace()
        switch current {
        case .comma:
            position += 1
            return true
        case .closeBracket:
            position += 1
            return false
        default:
            throw failure(expected: "',' or ']' after an array element")
        }
    }
}
