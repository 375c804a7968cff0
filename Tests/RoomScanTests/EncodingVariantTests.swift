import RoomScan
import Testing

@Suite("Encodings of the same export")
struct EncodingVariantTests {
    static let styles: [(String, JSONText)] = [
        ("compact, sorted keys", JSONText(layout: .compact, keyOrder: .sorted)),
        ("compact, unsorted keys", JSONText(layout: .compact, keyOrder: .reversed)),
        ("pretty, sorted keys", JSONText(layout: .pretty, keyOrder: .sorted)),
        ("pretty, unsorted keys", JSONText(layout: .pretty, keyOrder: .reversed)),
        ("unescaped slashes", JSONText(escapesSlashes: false)),
        ("exponent notation", JSONText(numbers: .exponent)),
        ("escaped non-ASCII", JSONText(escapesNonASCII: true)),
    ]

    @Test("compact or pretty, sorted or unsorted, every style decodes to the same room", arguments: Fixtures.exportNames)
    func everyStyleDecodesAlike(name: String) throws {
        let export = try Fixtures.export(name)
        let original = try CapturedRoom(json: export)
        let tree = try JSONText.parse(export)
        for (style, text) in Self.styles {
            let room = try CapturedRoom(json: text.encode(tree))
            #expect(room == original, "\(name) \(style)")
        }
    }

    @Test("escaped slashes, quotes and unicode in labels and categories decode to their characters")
    func escapesInStrings() throws {
        let json = #"{"objects":[{"category":{"a\/b\u00e9\ud83d\ude00":{}}}],"sections":[{"label":"living\/dining \"room\"\n"}]}"#
        let room = try CapturedRoom(json: Array(json.utf8))
        #expect(room.objects.map(\.category) == ["a/bé😀"])
        #expect(room.sections.map(\.label) == ["living/dining \"room\"\n"])
        #expect(room.sectionLabelsJSON == #"["living/dining \"room\"\n"]"#)
    }

    @Test("escaped key names are the keys they spell")
    func escapedKeys() throws {
        let json = #"{"wa\u006cls":[{"dimensions":[4,2.5,0],"\u0074ransform":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]}]}"#
        #expect(try CapturedRoom(json: Array(json.utf8)).wallCount == 1)
    }

    @Test("numbers in exponent notation, with signs and fractions, read as their values")
    func exponentNotation() throws {
        let json = #"{"walls":[{"dimensions":[4.0E0,25e-1,-0],"transform":[1e0,0,0,0,0,1,0,0,0,0,1,0,-1.5E+1,5.9843063e-05,0.125e1,1]}]}"#
        let wall = try #require(try CapturedRoom(json: Array(json.utf8)).walls.first)
        #expect(wall.dimensions == [4, 2.5, 0])
        #expect(wall.transform[12] == -15)
        #expect(wall.transform[13] == 5.9843063e-05)
        #expect(wall.transform[14] == 1.25)
    }

    @Test("null arrays read as absent ones, and unknown keys of any shape are ignored")
    func nullAndUnknownKeys() throws {
        let json = #"{"walls":null,"floors":null,"sections":null,"version":2,"coreModel":"QUJD\/+==","x":[{"y":[true,false,null,-1.5e3]}]}"#
        #expect(try CapturedRoom(json: Array(json.utf8)) == CapturedRoom())
    }

    @Test("whitespace anywhere between tokens is accepted")
    func whitespaceBetweenTokens() throws {
        let json = " \r\n\t{ \"walls\" :\n[ { \"dimensions\" : [ 4 , 2.5 , 0 ] ,\t\"transform\" : [1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1] } ] }\n "
        #expect(try CapturedRoom(json: Array(json.utf8)).wallCount == 1)
    }
}
