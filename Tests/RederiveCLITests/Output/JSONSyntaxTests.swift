import Foundation
import RederiveJSON
import RederiveTestSupport
import Testing

/// The import's JSON check: it accepts exactly what a JSON parser accepts, and names the first problem.
@Suite("JSONSyntax: well-formedness with line, column and reason")
struct JSONSyntaxTests {
    static let valid = [
        "{}", "[]", "0", "-0", "1.5e-3", "-12.25E+7", "true", "false", "null", #""""#, " \n\t{ } \r\n",
        #"{"a":[1,{"b":null},"\u00e9\n\"x\\"],"c":{}}"#, "[[[]],[{}]]", #"["é€𝄞"]"#, "\u{FEFF}{}",
    ]

    @Test(arguments: valid)
    func acceptsWhatJSONSerializationAccepts(_ text: String) throws {
        _ = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        #expect(JSONSyntax.problem(in: Array(text.utf8)) == nil)
    }

    @Test func acceptsEveryRealExport() throws {
        for name in RealExports.names {
            #expect(JSONSyntax.problem(in: try RealExports.bytes(name)) == nil, "\(name)")
        }
    }

    static let invalid: [(String, String)] = [
        ("", "at line 1, column 1 (byte 0): expected a value, found the end of the file"),
        ("  ", "at line 1, column 3 (byte 2): expected a value, found the end of the file"),
        (#"{"walls": ["#, "at line 1, column 12 (byte 11): expected a value, found the end of the file"),
        ("{\n  \"a\": 1\n  \"b\": 2\n}", "at line 3, column 3 (byte 13): expected ',' or '}' after a member, found '\"'"),
        ("{\"a\" 1}", "at line 1, column 6 (byte 5): expected ':' after a member name, found '1'"),
        ("{a:1}", "at line 1, column 2 (byte 1): expected a member name in double quotes, found 'a'"),
        ("[1 2]", "at line 1, column 4 (byte 3): expected ',' or ']' after an element, found '2'"),
        ("[1", "at line 1, column 3 (byte 2): expected ',' or ']' to continue the array, found the end of the file"),
        ("{} {}", "at line 1, column 4 (byte 3): '{' after the end of the document"),
        ("01", "at line 1, column 2 (byte 1): a number must not start with 0 followed by digits"),
        ("1.", "at line 1, column 3 (byte 2): expected a digit after the decimal point, found the end of the file"),
        ("1e+", "at line 1, column 4 (byte 3): expected a digit in the exponent, found the end of the file"),
        ("-x", "at line 1, column 2 (byte 1): expected a digit in a number, found 'x'"),
        ("tru", "at line 1, column 4 (byte 3): expected \"true\", found the end of the file"),
        ("nul!", "at line 1, column 4 (byte 3): expected \"null\", found '!'"),
        ("NaN", "at line 1, column 1 (byte 0): expected a value, found 'N'"),
        ("[\"é\tx\"]", "at line 1, column 4 (byte 4): control character U+0009 in a string; it must be escaped"),
        (#"["\q"]"#, "at line 1, column 4 (byte 3): invalid escape \\'q' in a string"),
        (#"["\u12G4"]"#, "at line 1, column 7 (byte 6): 'G' in a \\u escape, which takes four hexadecimal digits"),
        (#"{"a":"open"#, "at line 1, column 11 (byte 10): the file ends inside the string that starts at byte 5"),
    ]

    @Test(arguments: invalid)
    func refusesWhatJSONSerializationRefusesNamingWhereAndWhy(_ text: String, _ message: String) {
        #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) == nil)
        #expect(JSONSyntax.problem(in: Array(text.utf8))?.description == message)
    }

    /// Trailing commas, which Foundation's parser tolerates on Linux but RFC 8259 does not allow.
    @Test(arguments: [
        ("[1, 2,]", "at line 1, column 7 (byte 6): expected a value, found ']'"),
        ("{\"a\":1,}", "at line 1, column 8 (byte 7): expected a member name in double quotes, found '}'"),
    ])
    func refusesTrailingCommas(_ text: String, _ message: String) {
        #expect(JSONSyntax.problem(in: Array(text.utf8))?.description == message)
    }

    @Test(arguments: [
        ([0x22, 0xC3, 0x28, 0x22], "at line 1, column 2 (byte 1): bytes 0xC3 0x28 are not UTF-8"),
        ([0x22, 0xC0, 0xAF, 0x22], "at line 1, column 2 (byte 1): byte 0xC0 is not UTF-8"),  // overlong '/'
        ([0x22, 0xED, 0xA0, 0x80, 0x22], "at line 1, column 2 (byte 1): bytes 0xED 0xA0 are not UTF-8"),  // a surrogate
        ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], "at line 1, column 2 (byte 1): bytes 0xF4 0x90 are not UTF-8"),  // past U+10FFFF
        ([0x22, 0xE2, 0x82], "at line 1, column 2 (byte 1): a UTF-8 character is cut short by the end of the file"),
        ([0xFF], "at line 1, column 1 (byte 0): expected a value, found byte 0xFF"),
    ] as [([UInt8], String)])
    func refusesMalformedUTF8(_ bytes: [UInt8], _ message: String) {
        #expect(JSONSyntax.problem(in: bytes)?.description == message)
    }

    @Test func nestingOfAnyDepthCostsNoStack() {
        let depth = 200_000
        let nested = Array(String(repeating: #"{"a":["#, count: depth).utf8) + [0x31]
            + Array(String(repeating: "]}", count: depth).utf8)
        #expect(JSONSyntax.problem(in: nested) == nil)
        let unclosed = Array(nested.dropLast())
        #expect(JSONSyntax.problem(in: unclosed)?.reason == "expected ',' or '}' to continue the object, found the end of the file")
    }
}
