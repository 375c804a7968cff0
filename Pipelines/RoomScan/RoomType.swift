import RederiveJSON

/// The kind of room a scan shows, judged from three facts the pipeline has already derived for the
/// record: its floor area, its object categories and its section labels.
///
/// The judgement reads those columns' values, never the payload, so it agrees with what an app
/// sees in the database. RoomPlan's own section label is trusted first; without a single one, the
/// furniture decides, and a tiny room with nothing telling in it is a closet.
public enum RoomType {
    /// The section labels that name a room type, and the type each names.
    static let sectionTypes: [String: String] = [
        "livingRoom": "living_room",
        "bedroom": "bedroom",
        "bathroom": "bathroom",
        "kitchen": "kitchen",
        "diningRoom": "dining_room",
    ]

    /// The label RoomPlan gives a section it could not recognise; it says nothing about the room.
    static let unidentifiedLabel = "unidentified"

    /// Below this floor area in square metres, a room without telling labels or objects is a closet.
    static let closetAreaLimit = 4.0

    /// The room type of a record from its `floor_area_sqm`, `object_categories` and
    /// `section_labels` values, `nil` where a value is SQL `NULL`.
    ///
    /// The first rule that matches decides:
    /// 1. The labels hold exactly one distinct label other than `unidentified`: that label, as
    ///    `living_room`, `bedroom`, `bathroom`, `kitchen` or `dining_room` for RoomPlan's five
    ///    room labels, and lowercased otherwise.
    /// 2. A `bed`: `bedroom`.
    /// 3. A `toilet` or a `bathtub`: `bathroom`.
    /// 4. A `stove`, `oven`, `refrigerator` or `dishwasher`: `kitchen`.
    /// 5. A `sofa`, `television` or `fireplace`: `living_room`.
    /// 6. A `table` and at least two `chair`s: `dining_room`.
    /// 7. A floor area below 4 m²: `closet`.
    /// 8. Otherwise: `other`.
    ///
    /// The room holds a category when its count is at least 1. A `nil` value means nothing is
    /// known: it matches none of the rules that read it.
    ///
    /// - Parameters:
    ///   - floorArea: The floor area in square metres.
    ///   - objectCategories: A JSON object from category name to a whole, non-negative count,
    ///     such as `{"bed":1,"chair":2}`.
    ///   - sectionLabels: A JSON array of label strings, such as `["bedroom"]`.
    /// - Returns: The room type, such as `bedroom` or `other`.
    /// - Throws: ``InputError`` when `objectCategories` or `sectionLabels` is not such JSON,
    ///   naming the input and what is wrong with it.
    public static func classify(floorArea: Double?, objectCategories: String?, sectionLabels: String?) throws -> String {
        let labels = try sectionLabels.map(readLabels) ?? []
        let counts = try objectCategories.map(readCounts) ?? [:]
        func has(_ category: String, atLeast minimum: Double = 1) -> Bool {
            counts[category, default: 0] >= minimum
        }

        let identified = Set(labels).subtracting([unidentifiedLabel])
        if identified.count == 1, let label = identified.first {
            return sectionTypes[label] ?? label.lowercased()
        }
        if has("bed") {
            return "bedroom"
        }
        if has("toilet") || has("bathtub") {
            return "bathroom"
        }
        if ["stove", "oven", "refrigerator", "dishwasher"].contains(where: { has($0) }) {
            return "kitchen"
        }
        if ["sofa", "television", "fireplace"].contains(where: { has($0) }) {
            return "living_room"
        }
        if has("table"), has("chair", atLeast: 2) {
            return "dining_room"
        }
        if let floorArea, floorArea < closetAreaLimit {
            return "closet"
        }
        return "other"
    }

    /// Why ``RoomType/classify(floorArea:objectCategories:sectionLabels:)`` cannot read one of its
    /// inputs; this becomes the record's failure.
    ///
    /// Its description is one line, such as
    /// `object_categories is not a JSON object of counts: expected a count, found a string at bed (byte 17)`.
    public struct InputError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The input that is wrong, by the name of the column it comes from.
        public enum Input: String, Sendable, Hashable {
            /// The `object_categories` value.
            case objectCategories = "object_categories"
            /// The `section_labels` value.
            case sectionLabels = "section_labels"
        }

        /// Which input is wrong.
        public let input: Input
        /// What is wrong with it, with its place in the text.
        public let reason: RoomJSONError

        /// The input's column, what it should be, and what is wrong with it.
        public var description: String {
            let shape = switch input {
            case .objectCategories: "a JSON object of counts"
            case .sectionLabels: "a JSON array of strings"
            }
            return "\(input.rawValue) is not \(shape): \(reason)"
        }
    }

    /// The labels of a `section_labels` value, in order.
    static func readLabels(_ text: String) throws(InputError) -> [String] {
        try read(text, as: .sectionLabels) { cursor throws(JSONError) in
            try cursor.readArray { element throws(JSONError) in try element.readString() }
        }
    }

    /// The counts of an `object_categories` value, by category.
    static func readCounts(_ text: String) throws(InputError) -> [String: Double] {
        try read(text, as: .objectCategories) { cursor throws(JSONError) in
            var counts: [String: Double] = [:]
            try cursor.readObject { member, key throws(JSONError) in
                let category = member.name(of: key)
                member.skipWhitespace()
                let start = member.position
                guard member.current == .minus || member.current.isDigit else {
                    throw member.failure(expected: "a count")
                }
                let count = try member.readNumber()
                guard count >= 0, count.rounded() == count else {
                    throw JSONError("a count must be a whole number of at least 0, found \(count)", at: start)
                }
                // A repeated category would make its count ambiguous.
                guard counts.updateValue(count, forKey: category) == nil else {
                    throw JSONError("the category appears twice", at: start)
                }
            }
            return counts
        }
    }

    /// Reads the whole of `text` with `readValue`, reporting any problem as a fault of `input`.
    private static func read<Value>(
        _ text: String,
        as input: InputError.Input,
        _ readValue: (inout JSONCursor) throws(JSONError) -> Value
    ) throws(InputError) -> Value {
        let bytes = Array(text.utf8)
        do throws(JSONError) {
            return try bytes.withUnsafeBufferPointer { buffer throws(JSONError) in
                var cursor = JSONCursor(buffer)
                let value = try readValue(&cursor)
                try cursor.expectEnd()
                return value
            }
        } catch {
            throw InputError(input: input, reason: RoomJSONError(error))
        }
    }
}
