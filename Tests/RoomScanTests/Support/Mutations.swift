import Foundation

/// Variants of a real export built by editing its JSON tree: the same room in other encodings,
/// and rooms with optional parts removed or changed, all of which must decode alike with
/// `JSONDecoder` and with the scanner.
enum Mutations {
    typealias Tree = [String: Any]

    /// Named variants of one export.
    static func variants(of export: [UInt8]) throws -> [(name: String, json: [UInt8])] {
        guard let room = try JSONText.parse(export) as? Tree else {
            throw FixtureError("the export is not a JSON object")
        }
        var variants: [(String, [UInt8])] = [("as exported", export)]
        for (style, text) in EncodingVariantTests.styles {
            variants.append((style, text.encode(room)))
        }
        variants.append(("iOS 16", try JSONText.ios16Variant(of: export)))
        for key in ["walls", "doors", "windows", "openings", "floors", "objects", "sections", "coreModel"] {
            var edited = room
            edited[key] = nil
            variants.append(("without \(key)", JSONText().encode(edited)))
            edited[key] = NSNull()
            variants.append(("\(key) null", JSONText(layout: .pretty).encode(edited)))
            edited[key] = [Any]()
            variants.append(("\(key) empty", JSONText().encode(edited)))
        }
        variants.append(("floors without corners", JSONText().encode(editing(room, "floors") { $0["polygonCorners"] = nil })))
        variants.append(("floors with two corners", JSONText().encode(editing(room, "floors") { floor in
            floor["polygonCorners"] = (floor["polygonCorners"] as? [Any]).map { Array($0.prefix(2)) }
        })))
        variants.append(("elements reduced to what is read", JSONText(layout: .pretty).encode(reduced(room))))
        variants.append(("unknown members everywhere", JSONText(keyOrder: .reversed).encode(withUnknownMembers(room))))
        variants.append(("labels with escapes", JSONText(escapesNonASCII: true).encode(editing(room, "sections") { section in
            section["label"] = "Lounge/Diner \"2\" \u{e9}\u{1F600}\n"
        })))
        return variants
    }

    /// The room with a change to every element of one array.
    static func editing(_ room: Tree, _ key: String, _ edit: (inout Tree) -> Void) -> Tree {
        var room = room
        room[key] = (room[key] as? [Any])?.map { element -> Any in
            guard var element = element as? Tree else { return element }
            edit(&element)
            return element
        }
        return room
    }

    /// The room with only the members the pipeline reads.
    static func reduced(_ room: Tree) -> Tree {
        let kept: [String: Set<String>] = [
            "walls": ["dimensions", "transform"], "floors": ["dimensions", "polygonCorners"],
            "objects": ["category"], "sections": ["label"], "doors": [], "windows": [], "openings": [],
        ]
        var reduced = Tree()
        for (key, members) in kept {
            reduced[key] = (room[key] as? [Tree])?.map { $0.filter { members.contains($0.key) } }
        }
        return reduced
    }

    /// The room with extra members of every JSON type at every level that is read.
    static func withUnknownMembers(_ room: Tree) -> Tree {
        let extra: Tree = [
            "extraNumber": -1.25e-3, "extraString": "a\\b\"c", "extraBool": true, "extraNull": NSNull(),
            "extraNested": ["a": [[1, 2], ["b": false]], "c": [String: Any]()] as Tree,
        ]
        var room = room.merging(extra) { current, _ in current }
        for key in ["walls", "doors", "windows", "openings", "floors", "objects", "sections"] {
            room = editing(room, key) { $0.merge(extra) { current, _ in current } }
        }
        return room
    }
}
