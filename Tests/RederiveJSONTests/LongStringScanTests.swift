import Foundation
import RederiveJSON
import Testing

/// The string scan's thirty-two-byte steps: whatever falls at whatever offset of a chunk, a string reads
/// as JSONSerialization reads it, and is rejected where JSONSerialization rejects it.
@Suite("JSONCursor: long strings scanned thirty-two bytes at a time")
struct LongStringScanTests {
    /// What can stop or pass the scan, in a string: escapes (`\/` among them, which passes), an end
    /// quote, text that is not ASCII, and a raw control character, which makes the text invalid.
    static let specials = [
        #"\/"#, #"\\/"#, #"\\\/"#, #"\\"#, #"\""#, #"\n"#, #"\u00e9"#, #"\ud834\udd1e"#, "é", "€", "𝄞", "\u{01}", #"\x"#,
        "/", #"\/\/\/"#,
    ]

    /// A base64 run long enough that the special falls at any lane of a chunk and chunks follow it.
    static let filler = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0NTY3ODk"

    static var texts: [String] {
        specials.flatMap { special in
            (0 ..< 72).map { offset in
                let before = String(filler.prefix(offset))
                return "[\"\(before)\(special)\(filler)\", \"after\"]"
            }
        }
    }

    @Test func readsEveryStringAsJSONSerializationDoes() throws {
        for text in Self.texts {
            let bytes = Array(text.utf8)
            let expected = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String]
            let read = bytes.withUnsafeBufferPointer { buffer -> (String, Bool)? in
                var cursor = JSONCursor(buffer)
                cursor.position = 1
                guard let raw = try? cursor.scanString() else { return nil }
                var again = JSONCursor(buffer)
                again.position = 1
                guard let string = try? again.readString() else { return nil }
                let hasBackslash = buffer[raw.range].contains(UInt8(ascii: "\\"))
                return (string, raw.hasEscapes == hasBackslash)
            }
            #expect(read?.0 == expected?.first, "\(text.debugDescription)")
            #expect(read.map(\.1) ?? true, "escapes misreported in \(text.debugDescription)")
            #expect((JSONSyntax.problem(in: bytes) == nil) == (expected != nil), "\(text.debugDescription)")
        }
    }

    /// A `\/` anywhere in the thirty-two bytes that also hold the string's end quote, in any of their
    /// four words, marks the string as escaped; what follows the quote is long enough for full steps.
    @Test func anEscapedSlashJustBeforeTheEndQuoteMarksTheString() throws {
        let after = String(Self.filler.prefix(72))
        for slash in 0 ..< 36 {
            for quote in slash + 2 ..< 42 {
                let inside = String(Self.filler.prefix(slash)) + #"\/"# + String(Self.filler.prefix(quote - slash - 2))
                let bytes = Array("[\"\(inside)\", \"\(after)\"]".utf8)
                let (raw, text) = try bytes.withUnsafeBufferPointer { buffer in
                    var cursor = JSONCursor(buffer)
                    cursor.position = 1
                    let raw = try cursor.scanString()
                    var again = JSONCursor(buffer)
                    again.position = 1
                    return (raw, try again.readString())
                }
                #expect(raw.hasEscapes, "\\/ at \(slash), quote at \(quote)")
                #expect(text == inside.replacingOccurrences(of: #"\/"#, with: "/"), "\\/ at \(slash), quote at \(quote)")
            }
        }
    }

    /// A `\/` that follows a string's end quote, in the same eight bytes or later in the same step,
    /// is the next string's escape.
    @Test func anEscapedSlashAfterTheEndQuoteIsNotTheString() throws {
        #expect(try Self.escapeFlags(#"["plain", "x\/y\/z", "more text here to fill a chunk"]"#) == [false, true])
        let after = #"\/"# + Self.filler
        for length in 0 ..< 40 {
            let flags = try Self.escapeFlags("[\"\(Self.filler.prefix(length))\", \"\(after)\"]")
            #expect(flags == [false, true], "\(length) bytes before the end quote")
        }
    }

    /// Whether each of the first two strings of `text`, an array, has escapes, as the scan reports it.
    static func escapeFlags(_ text: String) throws -> [Bool] {
        try Array(text.utf8).withUnsafeBufferPointer { buffer in
            var cursor = JSONCursor(buffer)
            cursor.position = 1
            let first = try cursor.scanString()
            cursor.position += 1
            let second = try cursor.scanString()
            return [first.hasEscapes, second.hasEscapes]
        }
    }

    /// Bytes that are not UTF-8, at any lane of a step, make the string an error.
    @Test func bytesThatAreNotUTF8AreAnErrorAtAnyOffset() {
        let invalid: [[UInt8]] = [[0xFF], [0xC3, 0x41], [0xC0, 0xAF], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0x80]]
        for sequence in invalid {
            for offset in 0 ..< 72 {
                let bytes = Array("[\"".utf8) + Array(Self.filler.prefix(offset).utf8) + sequence
                    + Array(Self.filler.utf8) + Array("\"]".utf8)
                let scanned = bytes.withUnsafeBufferPointer { buffer in
                    var cursor = JSONCursor(buffer)
                    cursor.position = 1
                    return (try? cursor.scanString()) != nil
                }
                #expect(!scanned, "\(sequence) at \(offset)")
                #expect(JSONSyntax.problem(in: bytes) != nil, "\(sequence) at \(offset)")
            }
        }
    }

    /// A string the end of the text cuts short, whatever its length, is an error and not a read past
    /// the end of the buffer.
    @Test func aStringCutShortAtAnyLengthIsAnError() {
        for length in 0 ..< 80 {
            let bytes = Array(("[\"" + String(String(repeating: Self.filler, count: 2).prefix(length))).utf8)
            #expect(JSONSyntax.problem(in: bytes) != nil, "\(length) bytes")
        }
    }
}
