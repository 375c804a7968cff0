/// The bytes that make up JSON's syntax.
extension UInt8 {
    static var tab: UInt8 { UInt8(ascii: "\t") }
    static var lineFeed: UInt8 { UInt8(ascii: "\n") }
    static var carriageReturn: UInt8 { UInt8(ascii: "\r") }
    static var space: UInt8 { UInt8(ascii: " ") }
    static var quote: UInt8 { UInt8(ascii: "\"") }
    static var backslash: UInt8 { UInt8(ascii: "\\") }
    static var slash: UInt8 { UInt8(ascii: "/") }
    static var comma: UInt8 { UInt8(ascii: ",") }
    static var colon: UInt8 { UInt8(ascii: ":") }
    static var minus: UInt8 { UInt8(ascii: "-") }
    static var plus: UInt8 { UInt8(ascii: "+") }
    static var dot: UInt8 { UInt8(ascii: ".") }
    static var digitZero: UInt8 { UInt8(ascii: "0") }
    static var digitNine: UInt8 { UInt8(ascii: "9") }
    static var openBrace: UInt8 { UInt8(ascii: "{") }
    static var closeBrace: UInt8 { UInt8(ascii: "}") }
    static var openBracket: UInt8 { UInt8(ascii: "[") }
    static var closeBracket: UInt8 { UInt8(ascii: "]") }

    /// Whether the byte is an ASCII digit.
    var isDigit: Bool { self &- .digitZero < 10 }
}
