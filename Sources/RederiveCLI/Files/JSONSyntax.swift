/// Checks that bytes are one well-formed JSON document (RFC 8259, UTF-8), and says where and why not.
///
/// It only checks the syntax, building nothing, so it runs at memory speed and nesting of any depth
/// costs one byte of stack per level, never a thread's stack. Any value may stand at the top, as
/// `JSONSerialization` allows with `.fragmentsAllowed`; a UTF-8 byte order mark is skipped.
///
/// ```swift
/// if let problem = JSONSyntax.problem(in: bytes) {
///     print("not valid JSON \(problem)")   // "at line 3, column 14 (byte 52): expected ',' or '}' …"
/// }
/// ```
package enum JSONSyntax {
    /// Why bytes are not JSON, and where: the first byte that cannot continue a document.
    package struct Problem: Error, Equatable, CustomStringConvertible {
        /// The offset of the offending byte (the length of the input when it ended too early).
        package let offset: Int
        /// 1-based line and column (in characters) of that byte.
        package let line: Int
        package let column: Int
        package let reason: String

        package var description: String { "at line \(line), column \(column) (byte \(offset)): \(reason)" }
    }

    /// The first syntax error in `bytes`, or nil when they hold exactly one JSON value.
    package static func problem(in bytes: [UInt8]) -> Problem? {
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = Scanner(bytes: buffer)
            guard let (offset, reason) = scanner.scanDocument() else { return nil }
            let (line, column) = position(of: offset, in: buffer)
            return Problem(offset: offset, line: line, column: column, reason: reason)
        }
    }

    /// The 1-based line and character column of byte `offset`, counted only once an error is found.
    private static func position(of offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        for byte in bytes[..<min(offset, bytes.count)] {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                // Continuation bytes belong to the character their lead byte started.
                column += 1
            }
        }
        return (line, column)
    }

    /// The scanning state: where it is, and which containers are open (`{` or `[`, innermost last).
    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0
        var open: [UInt8] = []

        typealias Failure = (offset: Int, reason: String)

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        }

        /// Scans the whole input as one value followed only by whitespace.
        mutating func scanDocument() -> Failure? {
            skipWhitespace()
            // Each turn scans one value, or opens a container whose first value is next, then the
            // punctuation after a complete value, until the outermost container closes. Nesting lives
            // in `open`, never in the call stack.
            while true {
                switch scanValue() {
                case .failed(let failure): return failure
                case .opened: continue
                case .complete: break
                }
                while true {
                    skipWhitespace()
                    guard let container = open.last else {
                        return index == bytes.count ? nil : failure(reason: "\(found()) after the end of the document")
                    }
                    let isObject = container == UInt8(ascii: "{")
                    guard index < bytes.count else {
                        return failure(expected: isObject ? "',' or '}' to continue the object" : "',' or ']' to continue the array")
                    }
                    let byte = bytes[index]
                    if byte == UInt8(ascii: ",") {
                        index += 1
                        skipWhitespace()
                        if isObject, let failure = scanNameAndColon() { return failure }
                        break
                    }
                    if byte == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                        index += 1
                        open.removeLast()
                        continue
                    }
                    return failure(expected: isObject ? "',' or '}' after a member" : "',' or ']' after an element")
                }
            }
        }

        /// What scanning at the start of a value did.
        enum ValueOutcome {
            /// A whole value was scanned, an empty container included.
            case complete
            /// A container was opened (and for an object, its first name and colon scanned): a value is next.
            case opened
            case failed(Failure)
        }

        /// Scans one value, or opens a container.
        mutating func scanValue() -> ValueOutcome {
            guard index < bytes.count else { return .failed(failure(expected: "a value")) }
            let result: Failure?
            switch bytes[index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let opening = bytes[index]
                let closing = opening == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == closing {
                    index += 1
                    return .complete
                }
                open.append(opening)
                if opening == UInt8(ascii: "{"), let failure = scanNameAndColon() { return .failed(failure) }
                skipWhitespace()
                return .opened
            case UInt8(ascii: "\""):
                result = scanString()
            case UInt8(ascii: "t"):
                result = scanLiteral("true")
            case UInt8(ascii: "f"):
                result = scanLiteral("false")
            case UInt8(ascii: "n"):
                result = scanLiteral("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                result = scanNumber()
            default:
                result = failure(expected: "a value")
            }
            return result.map { .failed($0) } ?? .complete
        }

        /// A member name and its colon, then whitespace: the member's value is next.
        mutating func scanNameAndColon() -> Failure? {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                return failure(expected: "a member name in double quotes")
            }
            if let failure = scanString() { return failure }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                return failure(expected: "':' after a member name")
            }
            index += 1
            skipWhitespace()
            return nil
        }

        /// A string from its opening quote: escapes as RFC 8259 lists them, no raw control characters,
        /// and well-formed UTF-8 (no overlong forms, surrogates, or code points past U+10FFFF).
        mutating func scanString() -> Failure? {
            let start = index
            index += 1
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return nil
                case UInt8(ascii: "\\"):
                    index += 1
                    guard index < bytes.count else { break }
                    switch bytes[index] {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                         UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        index += 1
                    case UInt8(ascii: "u"):
                        index += 1
                        for _ in 0..<4 {
                            guard index < bytes.count else { break }
                            guard Self.isHexDigit(bytes[index]) else {
                                return failure(reason: "\(found()) in a \\u escape, which takes four hexadecimal digits")
                            }
                            index += 1
                        }
                    default:
                        return failure(reason: "invalid escape \\\(Self.describe(bytes[index])) in a string")
                    }
                case 0..<0x20:
                    return failure(reason: "control character U+\(Self.hex(byte, width: 4)) in a string; it must be escaped")
                case 0x20..<0x80:
                    index += 1
                default:
                    if let reason = scanMultibyteCharacter() { return failure(reason: reason) }
                }
            }
            return (bytes.count, "the file ends inside the string that starts at byte \(start)")
        }

        /// One UTF-8 character of two to four bytes, at a byte of 0x80 or above.
        mutating func scanMultibyteCharacter() -> String? {
            let lead = bytes[index]
            let length: Int
            var lowest: UInt8 = 0x80
            var highest: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; lowest = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; highest = 0x9F
            case 0xF0: length = 4; lowest = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; highest = 0x8F
            default: return "byte 0x\(Self.hex(lead, width: 2)) is not UTF-8"
            }
            for offset in 1..<length {
                let position = index + offset
                guard position < bytes.count else { return "a UTF-8 character is cut short by the end of the file" }
                let byte = bytes[position]
                let range = offset == 1 ? lowest...highest : 0x80...0xBF
                guard range.contains(byte) else {
                    return "bytes 0x\(Self.hex(lead, width: 2)) 0x\(Self.hex(byte, width: 2)) are not UTF-8"
                }
            }
            index += length
            return nil
        }

        /// `-`? (`0` | [1-9][0-9]*) (`.` [0-9]+)? ([eE] [+-]? [0-9]+)?
        mutating func scanNumber() -> Failure? {
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, Self.isDigit(bytes[index]) else { return failure(expected: "a digit in a number") }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
                if index < bytes.count, Self.isDigit(bytes[index]) {
                    return failure(reason: "a number must not start with 0 followed by digits")
                }
            } else {
                skipDigits()
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard index < bytes.count, Self.isDigit(bytes[index]) else { return failure(expected: "a digit after the decimal point") }
                skipDigits()
            }
            if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard index < bytes.count, Self.isDigit(bytes[index]) else { return failure(expected: "a digit in the exponent") }
                skipDigits()
            }
            return nil
        }

        mutating func scanLiteral(_ literal: StaticString) -> Failure? {
            let start = index
            for expected in UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount) {
                guard index < bytes.count, bytes[index] == expected else {
                    let word = index == start ? "a value" : "\"\(literal)\""
                    return failure(expected: word)
                }
                index += 1
            }
            return nil
        }

        mutating func skipDigits() {
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): index += 1
                default: return
                }
            }
        }

        func failure(expected: String) -> Failure {
            (index, "expected \(expected), found \(found())")
        }

        func failure(reason: String) -> Failure {
            (index, reason)
        }

        /// The byte at the current position, as a reader would name it.
        func found() -> String {
            index < bytes.count ? Self.describe(bytes[index]) : "the end of the file"
        }

        static func describe(_ byte: UInt8) -> String {
            (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(hex(byte, width: 2))"
        }

        static func hex(_ byte: UInt8, width: Int) -> String {
            let digits = String(byte, radix: 16, uppercase: true)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }

        static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

        static func isHexDigit(_ byte: UInt8) -> Bool {
            isDigit(byte) || (byte | 0x20) &- UInt8(ascii: "a") < 6
        }
    }
}
