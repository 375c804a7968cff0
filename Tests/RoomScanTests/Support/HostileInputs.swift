/// A payload that must be rejected, with where the rejection should point.
struct HostileInput: Sendable, CustomStringConvertible {
    let name: String
    let json: [UInt8]
    /// Text the error message should contain to say where the problem is, when the decoder knows.
    let location: String?

    init(_ name: String, _ json: String, at location: String? = nil) {
        self.name = name
        self.json = Array(json.utf8)
        self.location = location
    }

    init(_ name: String, bytes: [UInt8], at location: String? = nil) {
        self.name = name
        self.json = bytes
        self.location = location
    }

    var description: String { name }
}

extension HostileInput {
    static let wall = #"{"dimensions":[4,2.5,0],"transform":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]}"#
    static let deep = 100_000

    static let all: [HostileInput] = [
        // Nesting 100,000 levels deep, where the room is, where it is skipped, and where it is read.
        HostileInput("a top-level array nested 100,000 deep",
                     String(repeating: "[", count: deep) + String(repeating: "]", count: deep)),
        HostileInput("an unknown key nested 100,000 deep",
                     #"{"coreModel":"# + String(repeating: "[", count: deep) + String(repeating: "]", count: deep) + "}",
                     at: "coreModel"),
        HostileInput("objects nested 100,000 deep in an unknown key",
                     #"{"x":"# + String(repeating: #"{"a":"#, count: deep) + "1" + String(repeating: "}", count: deep) + "}",
                     at: "x"),
        HostileInput("walls nested 100,000 deep",
                     #"{"walls":"# + String(repeating: "[", count: deep) + String(repeating: "]", count: deep) + "}",
                     at: "walls[0]"),
        HostileInput("an unterminated 100,000-deep nesting", #"{"x":"# + String(repeating: "[", count: deep)),
        // Not an object at the top level.
        HostileInput("an array at the top level", #"[{"walls":[]}]"#),
        HostileInput("an empty array at the top level", "[]"),
        HostileInput("a string at the top level", #""room""#),
        HostileInput("a number at the top level", "42"),
        HostileInput("null at the top level", "null"),
        // Wrong types.
        HostileInput("walls as an object", #"{"walls":{}}"#, at: "walls"),
        HostileInput("walls as a string", #"{"walls":"4"}"#, at: "walls"),
        HostileInput("a wall as a number", #"{"walls":[1]}"#, at: "walls[0]"),
        HostileInput("a door as a string", #"{"doors":["door"]}"#, at: "doors[0]"),
        HostileInput("dimensions as a string", #"{"walls":[{"dimensions":"4","transform":[]}]}"#, at: "walls[0].dimensions"),
        HostileInput("a dimension as a string",
                     #"{"walls":[{"dimensions":[4,"2.5",0],"transform":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]}]}"#,
                     at: "walls[0].dimensions[1]"),
        HostileInput("a dimension as a boolean",
                     #"{"walls":[{"dimensions":[4,true,0],"transform":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]}]}"#,
                     at: "walls[0].dimensions[1]"),
        HostileInput("a corner as a number",
                     #"{"floors":[{"dimensions":[4,3,0],"polygonCorners":[[0,0,0],1]}]}"#, at: "floors[0].polygonCorners"),
        HostileInput("a category as a string", #"{"objects":[{"category":"chair"}]}"#, at: "objects[0].category"),
        HostileInput("a label as a number", #"{"sections":[{"label":3}]}"#, at: "sections[0].label"),
        HostileInput("a null label", #"{"sections":[{"label":null}]}"#, at: "sections[0].label"),
        // Missing keys.
        HostileInput("a wall without a transform", #"{"walls":[{"dimensions":[4,2.5,0]}]}"#, at: "walls[0]"),
        HostileInput("a wall without dimensions",
                     #"{"walls":[{"transform":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]}]}"#, at: "walls[0]"),
        HostileInput("a floor without dimensions", #"{"floors":[{"polygonCorners":[]}]}"#, at: "floors[0]"),
        HostileInput("an object without a category", #"{"objects":[{"dimensions":[1,1,1]}]}"#, at: "objects[0]"),
        HostileInput("a category without a name", #"{"objects":[{"category":{}}]}"#, at: "objects[0].category"),
        HostileInput("a category with two names", #"{"objects":[{"category":{"chair":{},"table":{}}}]}"#,
                     at: "objects[0].category"),
        HostileInput("a section without a label", #"{"sections":[{"center":[0,0,0]}]}"#, at: "sections[0]"),
        // Numbers out of range or of the wrong count.
        HostileInput("a dimension beyond a double",
                     #"{"walls":[{"dimensions":[1e400,2.5,0],"transform":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]}]}"#,
                     at: "walls[0].dimensions"),
        HostileInput("a dimension below the smallest double",
                     #"{"walls":[{"dimensions":[4,1e-400,0],"transform":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]}]}"#,
                     at: "walls[0].dimensions"),
        HostileInput("a huge integer dimension",
                     #"{"walls":[{"dimensions":[4,2.5,0],"transform":[1,0,0,0,0,1,0,0,0,0,1,0,123456789012345678901234567890,0,0,1]}]}"#,
                     at: "walls[0].transform"),
        HostileInput("a coordinate beyond the plausible range",
                     #"{"floors":[{"dimensions":[4,3,0],"polygonCorners":[[0,0,0],[2e6,0,0],[0,1,0]]}]}"#,
                     at: "floors[0].polygonCorners"),
        HostileInput("two dimensions instead of three",
                     #"{"walls":[{"dimensions":[4,2.5],"transform":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]}]}"#,
                     at: "walls[0].dimensions"),
        HostileInput("a transform of nine numbers",
                     #"{"walls":[{"dimensions":[4,2.5,0],"transform":[1,0,0,0,1,0,0,0,1]}]}"#, at: "walls[0].transform"),
        // Not JSON.
        HostileInput("no bytes at all", ""),
        HostileInput("only whitespace", " \n\t "),
        HostileInput("truncated text", #"{"walls":[{"dimensions":[4,2.5"#),
        HostileInput("an unterminated string", #"{"coreModel":"AAAA"#),
        HostileInput("text after the room", #"{"walls":[]} {}"#),
        HostileInput("a bare word", #"{"walls":[],"story":zero}"#),
        HostileInput("NaN", #"{"walls":[{"dimensions":[NaN,2.5,0]}]}"#),
        HostileInput("a number with a leading zero", #"{"walls":[{"dimensions":[04,2.5,0]}]}"#),
        HostileInput("a label with a lone surrogate", #"{"sections":[{"label":"\ud800"}]}"#),
        HostileInput("a label with an invalid escape", #"{"sections":[{"label":"\q"}]}"#),
        HostileInput("a label with a raw newline", "{\"sections\":[{\"label\":\"a\nb\"}]}"),
        HostileInput("a label with invalid UTF-8", bytes: Array(#"{"sections":[{"label":""#.utf8) + [0xC3, 0x28] + Array(#""}]}"#.utf8)),
        HostileInput("a key with a line break", #"{"line\nbreak\u2028":[tru]}"#, at: #"line\nbreak\u{2028}"#),
        HostileInput("a very long key", #"{""# + String(repeating: "k", count: 10_000) + #"":[tru]}"#, at: "kkkk…"),
        HostileInput("a missing colon", #"{"walls" []}"#),
        HostileInput("a mismatched bracket", #"{"walls":[}"#),
    ]
}
