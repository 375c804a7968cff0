import RoomScan

/// The `JSONDecoder` reading of a payload: the reference that ``CapturedRoom/init(json:)`` is
/// tested against. Unknown keys are ignored; absent or `null` arrays read as empty, but an object
/// with none of them is not a room.
extension CapturedRoom: Decodable {
    private enum CodingKeys: String, CodingKey {
        case walls, doors, windows, openings, floors, objects, sections
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard !container.allKeys.isEmpty else {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: "none of the room's arrays is present"))
        }
        self.init(
            walls: try container.decodeIfPresent([Wall].self, forKey: .walls) ?? [],
            doorCount: try container.decodeIfPresent([UnreadElement].self, forKey: .doors)?.count ?? 0,
            windowCount: try container.decodeIfPresent([UnreadElement].self, forKey: .windows)?.count ?? 0,
            openingCount: try container.decodeIfPresent([UnreadElement].self, forKey: .openings)?.count ?? 0,
            floors: try container.decodeIfPresent([Floor].self, forKey: .floors) ?? [],
            objects: try container.decodeIfPresent([Object].self, forKey: .objects) ?? [],
            sections: try container.decodeIfPresent([Section].self, forKey: .sections) ?? []
        )
    }
}

/// An array element that is only counted: it must be a JSON object, whatever it holds.
private struct UnreadElement: Decodable {
    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        _ = try decoder.container(keyedBy: AnyKey.self)
    }
}

extension CapturedRoom.Wall: Decodable {
    private enum CodingKeys: String, CodingKey {
        case dimensions, transform
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard !container.allKeys.isEmpty else {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: "none of the room's arrays is present"))
        }
        self.init(
            dimensions: try container.decodePlanNumbers(forKey: .dimensions, count: PayloadRules.vectorCount),
            transform: try container.decodePlanNumbers(forKey: .transform, count: PayloadRules.transformCount)
        )
    }
}

extension CapturedRoom.Floor: Decodable {
    private enum CodingKeys: String, CodingKey {
        case dimensions, polygonCorners
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let corners = try container.decodeIfPresent([[Double]].self, forKey: .polygonCorners) ?? []
        for (index, corner) in corners.enumerated() {
            if let problem = PayloadRules.problem(with: corner, count: PayloadRules.vectorCount) {
                throw DecodingError.dataCorruptedError(
                    forKey: .polygonCorners, in: container, debugDescription: "corner \(index): \(problem)")
            }
        }
        self.init(
            dimensions: try container.decodePlanNumbers(forKey: .dimensions, count: PayloadRules.vectorCount),
            polygonCorners: corners
        )
    }
}

extension CapturedRoom.Object: Decodable {
    private enum CodingKeys: String, CodingKey {
        case category
    }

    private struct CategoryKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let category = try container.nestedContainer(keyedBy: CategoryKey.self, forKey: .category)
        guard category.allKeys.count == 1, let name = category.allKeys.first?.stringValue else {
            throw DecodingError.dataCorruptedError(
                forKey: .category, in: container,
                debugDescription: "expected an object with one key, found \(category.allKeys.count) keys")
        }
        self.init(category: name)
    }
}

extension CapturedRoom.Section: Decodable {
    private enum CodingKeys: String, CodingKey {
        case label
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard !container.allKeys.isEmpty else {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: "none of the room's arrays is present"))
        }
        self.init(label: try container.decode(String.self, forKey: .label))
    }
}

extension KeyedDecodingContainer {
    /// A required list of `count` plan numbers, checked against ``PayloadRules``.
    fileprivate func decodePlanNumbers(forKey key: Key, count: Int) throws -> [Double] {
        let numbers = try decode([Double].self, forKey: key)
        if let problem = PayloadRules.problem(with: numbers, count: count) {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: problem)
        }
        return numbers
    }
}
