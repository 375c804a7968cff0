/// The bytes that make up JSON's syntax.
extension UInt8 {
    @inlinable package static var tab: UInt8 { UInt8(ascii: "\t") }
    @inlinable package static var lineFeed: UInt8 { UInt8(ascii: "\n") }
    @inlinable package static var carriageReturn: UInt8 { UInt8(ascii: "\r") }
    @inlinable package static var space: UInt8 { UInt8(ascii: " ") }
    @inlinable package static var quote: UInt8 { UInt8(ascii: "\"") }
    @inlinable package static var backslash: UInt8 { UInt8(ascii: "\\") }
    @inlinable package static var slash: UInt8 { UInt8(ascii: "/") }
    @inlinable package static var comma: UInt8 { UInt8(ascii: ",") }
    @inlinable package static var colon: UInt8 { UInt8(ascii: ":") }
    @inlinable package static var minus: UInt8 { UInt8(ascii: "-") }
    @inlinable package static var plus: UInt8 { UInt8(ascii: "+") }
    @inlinable package static var dot: UInt8 { UInt8(ascii: ".") }
    @inlinable package static var digitZero: UInt8 { UInt8(ascii: "0") }
    @inlinable package static var digitNine: UInt8 { UInt8(ascii: "9") }
    @inlinable package static var openBrace: UInt8 { UInt8(ascii: "{") }
    @inlinable package static var closeBrace: UInt8 { UInt8(ascii: "}") }
    @inlinable package static var openBracket: UInt8 { UInt8(ascii: "[") }
    @inlinable package static var closeBracket: UInt8 { UInt8(ascii: "]") }

    /// Whether the byte is an ASCII digit.
    @inlinable package var isDigit: Bool { self &- .digitZero < 10 }
}
