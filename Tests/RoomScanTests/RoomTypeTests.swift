import Rederive
import RoomScan
import Testing

@Suite("Room types")
struct RoomTypeTests {
    /// The room type of a record whose other values are these; `nil` stands for SQL `NULL`.
    func classify(area: Double? = 10, objects: String? = "{}", labels: String? = "[]") throws -> String {
        try RoomType.classify(floorArea: area, objectCategories: objects, sectionLabels: labels)
    }

    /// The three input values as the pipeline derives them from a payload.
    func inputs(derivedFrom json: [UInt8]) throws -> (area: Double?, objects: String?, labels: String?) {
        let values = deriveAll(RoomScan.pipeline, json)
        let byColumn = Dictionary(uniqueKeysWithValues: zip(RoomScan.pipeline.outputColumns.map(\.name), values))
        guard case .real(let area) = byColumn["floor_area_sqm"],
              case .text(let objects) = byColumn["object_categories"],
              case .text(let labels) = byColumn["section_labels"]
        else {
            throw FixtureError("the pipeline did not derive the room type's inputs: \(byColumn)")
        }
        return (area, objects, labels)
    }

    // MARK: Real exports

    @Test("every export's room type from its expected values matches the Python reference",
          arguments: Fixtures.exportNames)
    func expectedValuesGiveExpectedType(name: String) throws {
        let expected = try Fixtures.expected()
        for (form, values) in [("", expected.fixtures[name]), (" (iOS 16)", expected.ios16Variants[name])] {
            let values = try #require(values)
            let type = try RoomType.classify(
                floorArea: try #require(values["floor_area_sqm"] as? Double),
                objectCategories: try #require(values["object_categories"] as? String),
                sectionLabels: try #require(values["section_labels"] as? String)
            )
            #expect(type == (values["room_type"] as? String), "\(name)\(form)")
        }
    }

    @Test("every export's room type from the values the pipeline derives matches the Python reference",
          arguments: Fixtures.exportNames)
    func derivedValuesGiveExpectedType(name: String) throws {
        let expected = try Fixtures.expected()
        let export = try Fixtures.export(name)
        for (form, json, values) in [
            ("", export, expected.fixtures[name]),
            (" (iOS 16)", try JSONText.ios16Variant(of: export), expected.ios16Variants[name]),
        ] {
            let want = try #require(values?["room_type"] as? String, "\(name)\(form) has no expected room_type")
            let derived = try inputs(derivedFrom: json)
            let type = try RoomType.classify(
                floorArea: derived.area, objectCategories: derived.objects, sectionLabels: derived.labels
            )
            #expect(type == want, "\(name)\(form)")
        }
    }

    @Test("the exports span several room types, and one changes type without its section labels")
    func exportsSpanSeveralTypes() throws {
        let expected = try Fixtures.expected()
        let types = Set(expected.fixtures.values.compactMap { $0["room_type"] as? String })
        #expect(types == ["bathroom", "bedroom", "kitchen", "living_room", "other"])
        // Labelled a living room, but the oven decides once the iOS 16 form drops the sections.
        let name = "newtondotcom__roomplan__MyHome-Livingroom-capturedRoom.json"
        #expect(expected.fixtures[name]?["room_type"] as? String == "living_room")
        #expect(expected.ios16Variants[name]?["room_type"] as? String == "kitchen")
    }

    // MARK: Rule 1, section labels

    @Test("RoomPlan's room labels name their types", arguments: [
        ("livingRoom", "living_room"), ("bedroom", "bedroom"), ("bathroom", "bathroom"),
        ("kitchen", "kitchen"), ("diningRoom", "dining_room"),
    ])
    func roomLabelsNameTheirType(label: String, type: String) throws {
        #expect(try classify(labels: #"["\#(label)"]"#) == type)
    }

    @Test("any other label is the type, lowercased")
    func otherLabelsAreLowercased() throws {
        #expect(try classify(labels: #"["storageRoom"]"#) == "storageroom")
        #expect(try classify(labels: #"["GARAGE"]"#) == "garage")
        #expect(try classify(labels: #"["Bedroom"]"#) == "bedroom")
        // The label is JSON text: escapes are read.
        #expect(try classify(labels: #"["Gar\u0061ge"]"#) == "garage")
    }

    @Test("unidentified sections are ignored, and a repeated label counts once")
    func unidentifiedIsIgnored() throws {
        #expect(try classify(labels: #"["unidentified","kitchen","unidentified"]"#) == "kitchen")
        #expect(try classify(labels: #"["kitchen","kitchen"]"#) == "kitchen")
        #expect(try classify(objects: #"{"bed":1}"#, labels: #"["unidentified"]"#) == "bedroom")
        #expect(try classify(labels: #"["unidentified"]"#) == "other")
    }

    @Test("two distinct labels leave the decision to the objects and the area")
    func twoLabelsFallThrough() throws {
        #expect(try classify(labels: #"["kitchen","bedroom"]"#) == "other")
        #expect(try classify(objects: #"{"toilet":1}"#, labels: #"["kitchen","diningRoom"]"#) == "bathroom")
        #expect(try classify(area: 2, labels: #"["garage","storageRoom","unidentified"]"#) == "closet")
    }

    @Test("a single label beats every object rule and a small area")
    func labelBeatsObjects() throws {
        #expect(try classify(objects: #"{"bed":1}"#, labels: #"["bathroom"]"#) == "bathroom")
        #expect(try classify(area: 1, objects: #"{"oven":2,"toilet":1}"#, labels: #"["livingRoom"]"#) == "living_room")
    }

    // MARK: Rules 2 to 6, objects

    @Test("a bed makes a bedroom, before a toilet or anything else")
    func bedMakesBedroom() throws {
        #expect(try classify(objects: #"{"bed":1}"#) == "bedroom")
        #expect(try classify(objects: #"{"bed":1,"toilet":1}"#) == "bedroom")
        #expect(try classify(area: 1, objects: #"{"bathtub":1,"bed":2,"chair":2,"oven":1,"sofa":1,"table":1}"#) == "bedroom")
    }

    @Test("a toilet or a bathtub makes a bathroom, before kitchen appliances")
    func toiletOrBathtubMakesBathroom() throws {
        #expect(try classify(objects: #"{"toilet":1}"#) == "bathroom")
        #expect(try classify(objects: #"{"bathtub":1}"#) == "bathroom")
        #expect(try classify(objects: #"{"sink":1,"stove":1,"toilet":1}"#) == "bathroom")
    }

    @Test("a kitchen appliance makes a kitchen, before living room furniture",
          arguments: ["stove", "oven", "refrigerator", "dishwasher"])
    func applianceMakesKitchen(appliance: String) throws {
        #expect(try classify(objects: #"{"\#(appliance)":1}"#) == "kitchen")
        #expect(try classify(objects: #"{"\#(appliance)":1,"sofa":1,"television":1}"#) == "kitchen")
    }

    @Test("a sofa, a television or a fireplace makes a living room, before a table and chairs",
          arguments: ["sofa", "television", "fireplace"])
    func livingFurnitureMakesLivingRoom(item: String) throws {
        #expect(try classify(objects: #"{"\#(item)":1}"#) == "living_room")
        #expect(try classify(objects: #"{"chair":4,"table":1,"\#(item)":1}"#) == "living_room")
    }

    @Test("a table with at least two chairs makes a dining room; fewer chairs or no table do not")
    func tableAndChairsMakeDiningRoom() throws {
        #expect(try classify(objects: #"{"chair":2,"table":1}"#) == "dining_room")
        #expect(try classify(area: 1, objects: #"{"chair":6,"table":2}"#) == "dining_room")
        #expect(try classify(objects: #"{"chair":1,"table":1}"#) == "other")
        #expect(try classify(objects: #"{"chair":2}"#) == "other")
        #expect(try classify(objects: #"{"table":3}"#) == "other")
    }

    @Test("a category counted 0 is not in the room")
    func zeroCountIsAbsent() throws {
        #expect(try classify(objects: #"{"bed":0}"#) == "other")
        #expect(try classify(objects: #"{"bed":0,"toilet":1}"#) == "bathroom")
        #expect(try classify(objects: #"{"chair":2,"table":0}"#) == "other")
    }

    @Test("categories are matched exactly, and the JSON may be spaced out")
    func categoriesMatchExactly() throws {
        #expect(try classify(objects: #"{"Bed":1,"beds":1}"#) == "other")
        #expect(try classify(objects: " { \"bed\" : 1 } ") == "bedroom")
    }

    // MARK: Rules 7 and 8, area

    @Test("a floor area below 4 m² makes a closet; 4 m² does not")
    func smallAreaMakesCloset() throws {
        #expect(try classify(area: 3.99) == "closet")
        #expect(try classify(area: 0) == "closet")
        #expect(try classify(area: 4.0) == "other")
        #expect(try classify(area: 25) == "other")
        #expect(try classify(area: 3.99, objects: #"{"chair":1,"storage":2,"table":1}"#) == "closet")
    }

    // MARK: NULL inputs

    @Test("NULL inputs match no rule that reads them")
    func nullInputsKnowNothing() throws {
        #expect(try RoomType.classify(floorArea: nil, objectCategories: nil, sectionLabels: nil) == "other")
        #expect(try classify(area: nil) == "other")
        #expect(try classify(area: nil, objects: nil, labels: #"["kitchen"]"#) == "kitchen")
        #expect(try classify(area: nil, objects: #"{"bed":1}"#, labels: nil) == "bedroom")
        #expect(try classify(area: 1, objects: nil, labels: nil) == "closet")
    }

    // MARK: Malformed values

    @Test("a malformed object_categories value fails naming that input", arguments: [
        "", "null", "[]", #"{"bed":1"#, #"{"bed":1,}"#, #"{"bed":"1"}"#, #"{"bed":null}"#,
        #"{"bed":-1}"#, #"{"bed":1.5}"#, #"{"bed":1,"bed":1}"#, #"{"bed":1} x"#, "{bed:1}",
    ])
    func malformedCategoriesFail(text: String) throws {
        let error = try #require(throws: RoomType.InputError.self) {
            try classify(objects: text, labels: #"["bedroom"]"#)
        }
        #expect(error.input == .objectCategories)
        #expect(error.description.hasPrefix("object_categories is not a JSON object of counts: "), "\(error)")
        #expect(!error.description.contains("\n"))
    }

    @Test("a malformed section_labels value fails naming that input", arguments: [
        "", "null", "{}", #""bedroom""#, #"["bedroom""#, #"["bedroom",]"#, "[1]", "[null]",
        #"[["bedroom"]]"#, #"["bedroom"]]"#, "[\"bed\u{1}room\"]",
    ])
    func malformedLabelsFail(text: String) throws {
        let error = try #require(throws: RoomType.InputError.self) {
            try classify(objects: #"{"bed":1}"#, labels: text)
        }
        #expect(error.input == .sectionLabels)
        #expect(error.description.hasPrefix("section_labels is not a JSON array of strings: "), "\(error)")
        #expect(!error.description.contains("\n"))
    }

    @Test("the failure says what is wrong and where")
    func failureSaysWhatAndWhere() throws {
        let trailingComma = try #require(throws: RoomType.InputError.self) { try classify(objects: #"{"bed":1,}"#) }
        #expect(trailingComma.description
            == "object_categories is not a JSON object of counts: expected a member name in double quotes, found '}' at top level (byte 9)")
        let text = try #require(throws: RoomType.InputError.self) { try classify(objects: #"{"chair":2,"bed":"1"}"#) }
        #expect(text.description
            == "object_categories is not a JSON object of counts: expected a count, found a string at bed (byte 17)")
        let number = try #require(throws: RoomType.InputError.self) { try classify(labels: #"["kitchen",2]"#) }
        #expect(number.description
            == "section_labels is not a JSON array of strings: expected a string, found a number at [1] (byte 11)")
    }
}
