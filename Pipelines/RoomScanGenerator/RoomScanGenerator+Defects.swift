extension RoomScanGenerator {
    /// A way in which a generated payload is deliberately broken.
    public enum Defect: String, Sendable, Hashable, CaseIterable {
        /// Text that is not JSON: a key without its colon, a key without quotes, or a mismatched
        /// bracket.
        case invalidJSON = "invalid-json"
        /// A value of the wrong type where the pipeline reads one.
        case wrongType = "wrong-type"
        /// A wall, object or section without a key the pipeline needs.
        case missingKey = "missing-key"
        /// The room wrapped in an array.
        case topLevelArray = "top-level-array"
        /// The text cut off before its end.
        case truncated = "truncated"
        /// A wall dimension too large for a `Double`.
        case numberOutOfRange = "number-out-of-range"
        /// An extra member nested 100,000 levels deep.
        case deepNesting = "deep-nesting"
    }

    /// A payload that must fail to decode, and the name of its defect; successive indices cycle
    /// through every ``Defect``.
    public func brokenScan(at index: Int) -> (json: [UInt8], defect: String) {
        let defect = Defect.allCases[index % Defect.allCases.count]
        return (brokenScan(at: index, defect: defect), defect.rawValue)
    }

    /// The scan at `index`, broken in the given way.
    public func brokenScan(at index: Int, defect: Defect) -> [UInt8] {
        let traits = traits(at: index)
        let style: JSONTree.Style = traits.isPrettyPrinted ? .prettySorted : .compact
        var random = generator(for: index, stream: 2)
        guard case .object(var members) = room(at: index, traits: traits) else {
            preconditionFailure("a generated room is an object")
        }
        switch defect {
        case .invalidJSON:
            var json = JSONTree.object(members).encoded(style)
            switch Int.random(in: 0 ..< 3, using: &random) {
            case 0:
                // The first colon follows the first key.
                json.remove(at: json.firstIndex(of: UInt8(ascii: ":"))!)
            case 1:
                json[json.lastIndex(of: UInt8(ascii: "}"))!] = UInt8(ascii: "]")
            default:
                json = Array(#"{walls:[],"# .utf8) + json.dropFirst()
            }
            return json
        case .wrongType:
            let replacements: [(String, (JSONTree) -> JSONTree)] = [
                ("walls", { _ in .object([]) }),
                ("walls", { walls in
                    Self.editingFirst(walls) { wall in wall.filter { $0.0 != "dimensions" } + [("dimensions", .string("4.2"))] }
                }),
                ("objects", { _ in .string("chair") }),
                ("doors", { _ in .array([.number(1)]) }),
            ]
            let (key, replace) = replacements[Int.random(in: 0 ..< replacements.count, using: &random)]
            members = Self.replacing(key, in: members, with: replace)
        case .missingKey:
            let key = ["transform", "dimensions"][Int.random(in: 0 ..< 2, using: &random)]
            members = Self.replacing("walls", in: members) { walls in
                Self.editingFirst(walls) { wall in wall.filter { $0.0 != key } }
            }
        case .topLevelArray:
            return JSONTree.array([.object(members)]).encoded(style)
        case .truncated:
            let json = JSONTree.object(members).encoded(style)
            // Any proper prefix of an object's text is incomplete.
            return Array(json.prefix(Int.random(in: 0 ..< json.count - 1, using: &random)))
        case .numberOutOfRange:
            members = Self.replacing("walls", in: members) { walls in
                Self.editingFirst(walls) { wall in
                    wall.filter { $0.0 != "dimensions" } + [("dimensions", .array([.raw("4.2e999"), .number(2.4), .number(0)]))]
                }
            }
        case .deepNesting:
            let depth = 100_000
            let nested = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            members.insert(("extension", .raw(nested)), at: Int.random(in: 0 ... members.count, using: &random))
        }
        return JSONTree.object(members).encoded(style)
    }

    /// The members with the value of `key` replaced, or added when absent.
    private static func replacing(
        _ key: String, in members: [(String, JSONTree)], with replace: (JSONTree) -> JSONTree
    ) -> [(String, JSONTree)] {
        guard let index = members.firstIndex(where: { $0.0 == key }) else {
            return members + [(key, replace(.array([])))]
        }
        var members = members
        members[index].1 = replace(members[index].1)
        return members
    }

    /// An array whose first object is edited; an empty array gets an edited empty object.
    private static func editingFirst(
        _ array: JSONTree, _ edit: ([(String, JSONTree)]) -> [(String, JSONTree)]
    ) -> JSONTree {
        guard case .array(var elements) = array, case .object(let first)? = elements.first else {
            return .array([.object(edit([]))])
        }
        elements[0] = .object(edit(first))
        return .array(elements)
    }
}
