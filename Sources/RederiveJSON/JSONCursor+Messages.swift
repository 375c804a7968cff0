/// What the cursor says when the text is not what was expected.
extension JSONCursor {
    /// An error at the current position.
    @usableFromInline package func failure(_ reason: String) -> JSONError {
        JSONError(reason, at: position)
    }

    /// An error saying which value was expected, and which value is there instead.
    @usableFromInline package func failure(expected: String) -> JSONError {
        failure("expected \(expected), found \(foundValue)")
    }

    /// An error saying which part of the grammar was expected, and which character is there instead.
    @usableFromInline package func failure(expectedSyntax expected: String) -> JSONError {
        failure("expected \(expected), found \(foundCharacter)")
    }

    /// The value that starts at the current position (`a string`, `an object`…), or the character
    /// there when it starts none.
    @usableFromInline package var foundValue: String {
        switch current {
        case .quote: "a string"
        case .openBrace: "an object"
        case .openBracket: "an array"
        case .minus, .digitZero ... .digitNine: "a number"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): "a boolean"
        case UInt8(ascii: "n"): "null"
        default: foundCharacter
        }
    }

    /// The character at the current position as a reader would name it (`'}'`, `byte 0xFF`), or the end.
    @usableFromInline package var foundCharacter: String {
        position < bytes.count ? Self.describe(bytes[position]) : "the end of the file"
    }

    /// A byte as a reader would name it: the character when it is printable ASCII.
    @usableFromInline package static func describe(_ byte: UInt8) -> String {
        (0x21 ..< 0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(hex(byte))"
    }

    /// Two uppercase hexadecimal digits.
    @usableFromInline package static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count < 2 ? "0" + digits : digits
    }
}
