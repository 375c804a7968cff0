import Foundation
import RederiveJSON
import Testing

/// The string scan's sixteen-byte steps: whatever falls at whatever offset of a chunk, a string reads
/// as JSONSerialization reads it, and is rejected where JSONSerialization rejects it.
@Suite("JSONCursor: long strings scanned sixteen bytes at a time")
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
            (0 ..< 40).map { offset in
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

    /// A `\/` after a string's end quote, in the same sixteen bytes, is another string's escape.
    @Test func escapesAfterTheEndQuoteAreNotTheString() throws {
        let text = #"["plain", "x\/y\/z", "more text here to fill a chunk"]"#
        let bytes = Array(text.utf8)
        let flags = try bytes.withUnsafeBufferPointer { buffer in
            var cursor = JSONCursor(buffer)
            cursor.position = 1
            let first = try cursor.scanString()
            cursor.position += 1
            let second = try cursor.scanString()
            return [first.hasEscapes, second.hasEscapes]
        }
        #expect(flags == [false, true])
    }

    /// A `\/` anywhere in the sixteen bytes that also hold the string's end quote, on either side of
    /// their middle, marks the string as escaped; what follows the quote is long enough for full steps.
    @Test func anEscapedSlashJustBeforeTheEndQuoteMarksTheString() throws {
        let after = String(Self.filler.prefix(40))
        for slash in 0 ..< 20 {
            for quote in slash + 2 ..< 26 {
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

    /// A string the end of the text cuts short, whatever its length, is an error and not a read past
    /// the end of the buffer.
    @Test func aStringCutShortAtAnyLengthIsAnError() {
        for length in 0 ..< 48 {
            let bytes = Array(("[\"" + String(String(repeating: Self.filler, count: 2).prefix(length))).utf8)
            #expect(JSONSyntax.problem(in: bytes) != nil, "\(length) bytes")
        }
    }
}
