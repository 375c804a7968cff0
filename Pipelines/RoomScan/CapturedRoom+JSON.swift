import RederiveJSON

extension CapturedRoom {
    /// Decodes a room from the UTF-8 JSON of a RoomPlan export, in one pass over its bytes.
    ///
    /// Accepts what `JSONDecoder` accepts of a valid export (any whitespace, any key order,
    /// escapes, exponents, absent or `null` arrays) and decodes to the same room. An object that
    /// holds none of the room's arrays (`{}`) is not a room. Values the
    /// pipeline does not need, such as the base64 `coreModel`, are checked and skipped without
    /// being copied. Unlike `JSONDecoder`, it also rejects trailing commas and invalid JSON inside
    /// skipped values.
    ///
    /// - Throws: ``RoomJSONError`` when the text is not JSON or not a room, naming the problem,
    ///   its path in the room and its byte offset.
    public init(json: [UInt8]) throws(RoomJSONError) {
        do throws(JSONError) {
            self = try json.withUnsafeBufferPointer { bytes throws(JSONError) in
                var cursor = JSONCursor(bytes)
                let room = try cursor.readRoom()
                try cursor.expectEnd()
                return room
            }
        } catch {
            throw RoomJSONError(error)
        }
    }
}

/// The layout of a RoomPlan export, read with a `JSONCursor`.
///
/// Each reader takes the `depth` of the value it reads (the top-level object is 1), so that
/// skipped values are held to the cursor's nesting limit. When a key appears twice in an object,
/// the first one counts and the other is skipped, as with `JSONDecoder`.
extension JSONCursor {
    /// The top-level object.
    mutating func readRoom() throws(JSONError) -> CapturedRoom {
        skipWhitespace()
        let start = position
        var room = CapturedRoom()
        var seen: Set<RoomMember> = []
        // Elements of the room's arrays sit inside the room and the array.
        let elementDepth = 3
        try readObject { cursor, key throws(JSONError) in
            guard let member = RoomMember.allCases.first(where: { cursor.key(key, is: $0.key) }),
                  seen.insert(member).inserted
            else {
                return try cursor.skipValue(depth: 1)
            }
            // An array that is `null` reads as absent.
            if try cursor.readNull() { return }
            switch member {
            case .walls:
                room.walls = try cursor.readArray { wall throws(JSONError) in try wall.readWall(depth: elementDepth) }
            case .doors:
                room.doorCount = try cursor.countObjects(depth: elementDepth)
            case .windows:
                room.windowCount = try cursor.countObjects(depth: elementDepth)
            case .openings:
                room.openingCount = try cursor.countObjects(depth: elementDepth)
            case .floors:
                room.floors = try cursor.readArray { floor throws(JSONError) in try floor.readFloor(depth: elementDepth) }
            case .objects:
                room.objects = try cursor.readArray { object throws(JSONError) in try object.readRoomObject(depth: elementDepth) }
            case .sections:
                room.sections = try cursor.readArray { section throws(JSONError) in
                    try section.readSection(depth: elementDepth)
                }
            }
        }
        // Every RoomPlan export holds its arrays (`null` at worst): an object with none of them, such
        // as `{}`, is not a room, and must not derive as an empty one (a "closet").
        guard !seen.isEmpty else {
            throw JSONError(
                "not a RoomPlan room: none of \(RoomMember.allCases.map { "\"\($0.key)\"" }.joined(separator: ", ")) is present", at: start
            )
        }
        return room
    }

    /// An element of `walls`.
    mutating func readWall(depth: Int) throws(JSONError) -> CapturedRoom.Wall {
        var dimensions: [Double]?
        var transform: [Double]?
        try readObject { cursor, key throws(JSONError) in
            if dimensions == nil, cursor.key(key, is: "dimensions") {
                dimensions = try cursor.readPlanNumbers(count: PayloadRules.vectorCount)
            } else if transform == nil, cursor.key(key, is: "transform") {
                transform = try cursor.readPlanNumbers(count: PayloadRules.transformCount)
            } else {
                try cursor.skipValue(depth: depth)
            }
        }
        guard let dimensions else { throw failure("missing key \"dimensions\"") }
        guard let transform else { throw failure("missing key \"transform\"") }
        return CapturedRoom.Wall(dimensions: dimensions, transform: transform)
    }

    /// An element of `floors`.
    mutating func readFloor(depth: Int) throws(JSONError) -> CapturedRoom.Floor {
        var dimensions: [Double]?
        var corners: [[Double]]?
        try readObject { cursor, key throws(JSONError) in
            if dimensions == nil, cursor.key(key, is: "dimensions") {
                dimensions = try cursor.readPlanNumbers(count: PayloadRules.vectorCount)
            } else if corners == nil, cursor.key(key, is: "polygonCorners") {
                corners = try cursor.readNull()
                    ? []
                    : try cursor.readArray { corner throws(JSONError) in
                        try corner.readPlanNumbers(count: PayloadRules.vectorCount)
                    }
            } else {
                try cursor.skipValue(depth: depth)
            }
        }
        guard let dimensions else { throw failure("missing key \"dimensions\"") }
        return CapturedRoom.Floor(dimensions: dimensions, polygonCorners: corners ?? [])
    }

    /// An element of `objects`.
    mutating func readRoomObject(depth: Int) throws(JSONError) -> CapturedRoom.Object {
        var category: String?
        try readObject { cursor, key throws(JSONError) in
            if category == nil, cursor.key(key, is: "category") {
                category = try cursor.readCategory(depth: depth + 1)
            } else {
                try cursor.skipValue(depth: depth)
            }
        }
        guard let category else { throw failure("missing key \"category\"") }
        return CapturedRoom.Object(category: category)
    }

    /// An object's `category`: an object whose single key is the category's name.
    mutating func readCategory(depth: Int) throws(JSONError) -> String {
        let start = position
        var names: [String] = []
        try readObject { cursor, key throws(JSONError) in
            let name = cursor.name(of: key)
            if !names.contains(name) { names.append(name) }
            try cursor.skipValue(depth: depth)
        }
        guard names.count == 1 else {
            throw JSONError("expected an object with one key, found \(names.count) keys", at: start)
        }
        return names[0]
    }

    /// An element of `sections`.
    mutating func readSection(depth: Int) throws(JSONError) -> CapturedRoom.Section {
        var label: String?
        try readObject { cursor, key throws(JSONError) in
            if label == nil, cursor.key(key, is: "label") {
                label = try cursor.readString()
            } else {
                try cursor.skipValue(depth: depth)
            }
        }
        guard let label else { throw failure("missing key \"label\"") }
        return CapturedRoom.Section(label: label)
    }

    /// An array whose elements are only counted: each must be an object, whatever it holds.
    mutating func countObjects(depth: Int) throws(JSONError) -> Int {
        var count = 0
        guard try openArray() else { return count }
        repeat {
            skipWhitespace()
            guard current == .openBrace else { throw failure(expected: "an object").inside(.index(count)) }
            do throws(JSONError) {
                try skipValue(depth: depth - 1)
            } catch {
                throw error.inside(.index(count))
            }
            count += 1
        } while try nextElement()
        return count
    }

    /// A list of `count` numbers, checked against ``PayloadRules``.
    mutating func readPlanNumbers(count: Int) throws(JSONError) -> [Double] {
        skipWhitespace()
        let start = position
        let numbers = try readArray(reservingCapacity: count) { cursor throws(JSONError) in try cursor.readNumber() }
        if let problem = PayloadRules.problem(with: numbers, count: count) {
            throw JSONError(problem, at: start)
        }
        return numbers
    }
}

/// The members of the top-level object that the pipeline reads.
private enum RoomMember: CaseIterable {
    case walls, doors, windows, openings, floors, objects, sections

    var key: StaticString {
        switch self {
        case .walls: "walls"
        case .doors: "doors"
        case .windows: "windows"
        case .openings: "openings"
        case .floors: "floors"
        case .objects: "objects"
        case .sections: "sections"
        }
    }
}
