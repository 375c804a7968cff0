import Foundation
import Rederive
import RoomScan
import RoomScanReference
import Testing

@Suite("The scanner against JSONDecoder")
struct ScannerEquivalenceTests {
    /// The room `JSONDecoder` reads, the reference for the scanner.
    static func reference(_ json: [UInt8]) throws -> CapturedRoom {
        try JSONDecoder().decode(CapturedRoom.self, from: Data(json))
    }

    @Test("every export and its variants decode to the same room both ways", arguments: Fixtures.exportNames)
    func exportsAndVariantsDecodeAlike(name: String) throws {
        for (variant, json) in try Mutations.variants(of: try Fixtures.export(name)) {
            let expected = try Self.reference(json)
            let room = try CapturedRoom(json: json)
            #expect(room == expected, "\(name), \(variant)")
            // Processors that read other processors' values never see the payload: RoomTypeTests covers them.
            for processor in RoomScan.processors where processor.inputs.isEmpty {
                #expect(try processor.derive(room) == processor.derive(expected), "\(name), \(variant): \(processor.name)")
            }
        }
    }

    @Test("every hostile payload is rejected by both", arguments: HostileInput.all)
    func hostileInputsAreRejectedByBoth(input: HostileInput) {
        #expect(throws: (any Error).self, "JSONDecoder: \(input)") { try Self.reference(input.json) }
        #expect(throws: RoomJSONError.self, "scanner: \(input)") { try CapturedRoom(json: input.json) }
    }

    @Test("every truncation of an export is rejected by both")
    func truncationsAreRejected() throws {
        let export = JSONText(layout: .compact).encode(try JSONText.parse(try Fixtures.export("newtondotcom__roomplan__MyHome-Hallway2-capturedRoom.json")))
        for length in stride(from: 0, to: export.count, by: 97) {
            let truncated = Array(export.prefix(length))
            #expect(throws: RoomJSONError.self, "\(length) bytes") { try CapturedRoom(json: truncated) }
            #expect(throws: (any Error).self, "\(length) bytes") { try Self.reference(truncated) }
        }
    }

    @Test("nesting is accepted up to 512 levels and rejected beyond, as by JSONDecoder")
    func nestingLimitMatchesJSONDecoder() throws {
        // The room itself is the first level; it holds one of a room's arrays, as a room must.
        for (levels, accepted) in [(511, true), (512, false)] {
            let json = Array((#"{"walls":[],"x":"# + String(repeating: "[", count: levels) + String(repeating: "]", count: levels) + "}").utf8)
            #expect(((try? CapturedRoom(json: json)) != nil) == accepted, "\(levels)")
            #expect(((try? Self.reference(json)) != nil) == accepted, "\(levels)")
        }
    }

    @Test("the first of two members with the same key counts, as with JSONDecoder")
    func duplicateKeysKeepTheFirst() throws {
        let json = Array(#"{"sections":[{"label":"kitchen","label":"bedroom"}],"sections":[],"doors":null,"doors":[{}]}"#.utf8)
        let room = try CapturedRoom(json: json)
        #expect(room == (try Self.reference(json)))
        #expect(room.sections.map(\.label) == ["kitchen"])
        #expect(room.doorCount == 0)
    }

    @Test("numbers read to the same bits as with JSONDecoder, and huge ones are out of range")
    func numbersReadExactly() throws {
        let numbers = [
            "0", "-0", "1", "-1.5", "0.1", "5.9843063e-05", "-1.1920929E-07", "4.9e-324", "2.2250738585072011e-308",
            "0.30000000000000004", "9007199254740993", "999999.99999999999999999", "1e-22", "1e-23", "0.000000000000000000000000000001",
            "100000000000000000000000e-30", "1.00000000000000011102230246251565404236316680908203125",
            "1e22", "1.7976931348623157e308", "123456789012345678901234567890", "3.4028235e+38",
        ]
        for number in numbers {
            let json = Array(#"{"floors":[{"dimensions":[0,0,0],"polygonCorners":[[0,0,"#.utf8) + Array("\(number)]]}]}".utf8)
            let reference = try? Self.reference(json)
            let room = try? CapturedRoom(json: json)
            let value = try JSONDecoder().decode([Double].self, from: Data("[\(number)]".utf8))[0]
            if abs(value) <= 1_000_000 {
                #expect(room?.floors[0].polygonCorners[0][2].bitPattern == value.bitPattern, "\(number)")
                #expect(room == reference, "\(number)")
            } else {
                #expect(room == nil, "\(number)")
            }
        }
    }

    /// Foundation's `JSONDecoder` accepts all of these: it allows trailing commas, and does not
    /// check the strings it skips.
    @Test("the scanner rejects trailing commas and invalid strings, even in values it skips", arguments: [
        #"{"walls":[],}"#,
        #"{"walls":[{"dimensions":[4,2.5,0,],"transform":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]}]}"#,
        #"{"coreModel":"\q"}"#,
        "{\"coreModel\":\"tab\there\"}",
        #"{"x":[1,]}"#,
    ])
    func scannerIsStricter(json: String) {
        #expect(throws: RoomJSONError.self) { try CapturedRoom(json: Array(json.utf8)) }
    }

    @Test("the scanner's messages name the problem, its path and its byte")
    func messagesNameProblemPathAndByte() {
        let json = Array(#"{"walls":[{"dimensions":[4,2.5,0],"transform":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]},{"dimensions":[4,"x",0]}]}"#.utf8)
        #expect {
            try CapturedRoom(json: json)
        } throws: { error in
            String(describing: error) == "expected a number, found a string at walls[1].dimensions[1] (byte 98)"
        }
    }
}
