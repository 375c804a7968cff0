import Foundation
import Rederive
import RoomScan
import RoomScanGenerator
import RoomScanReference
import Testing

@Suite("Synthetic scans")
struct RoomScanGeneratorTests {
    static let generator = RoomScanGenerator(seed: 20_240_611)
    static let indices = Array(0 ..< 48)

    @Test("the same seed and index always give the same bytes, and other seeds or indices others")
    func generationIsDeterministic() {
        let again = RoomScanGenerator(seed: 20_240_611)
        for index in 0 ..< 4 {
            #expect(Self.generator.scan(at: index) == again.scan(at: index))
            #expect(Self.generator.brokenScan(at: index) == again.brokenScan(at: index))
        }
        #expect(Self.generator.scan(at: 0) != Self.generator.scan(at: 1))
        #expect(Self.generator.scan(at: 0) != RoomScanGenerator(seed: 1).scan(at: 0))
    }

    @Test("across many scans every kind of room and both encodings occur")
    func everyTraitOccurs() {
        let traits = (0 ..< 200).map(Self.generator.traits(at:))
        #expect(Set(traits.map(\.shape)) == Set(RoomScanGenerator.Traits.Shape.allCases))
        #expect(Set(traits.map(\.isPartial)) == [true, false])
        #expect(Set(traits.map(\.isIOS16)) == [true, false])
        #expect(Set(traits.map(\.isPrettyPrinted)) == [true, false])
    }

    @Test("a scan decodes alike with the scanner and JSONDecoder", arguments: indices)
    func scansDecodeAlikeBothWays(index: Int) throws {
        let json = Self.generator.scan(at: index)
        #expect(try CapturedRoom(json: json) == JSONDecoder().decode(CapturedRoom.self, from: Data(json)))
    }

    @Test("a scan has the shape and size of a real export", arguments: indices)
    func scansLookReal(index: Int) throws {
        let traits = Self.generator.traits(at: index)
        let json = Self.generator.scan(at: index)
        let text = String(decoding: json, as: UTF8.self)
        let tree = try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
        let coreModel = try #require(tree["coreModel"] as? String)
        let share = Double(coreModel.count + coreModel.count / 64) / Double(json.count)
        #expect((0.6 ... 0.93).contains(share), "coreModel is \(share) of the bytes")
        #expect(Data(base64Encoded: coreModel) != nil)
        #expect(text.contains(#"\/"#))
        #expect(text.contains("\n") == traits.isPrettyPrinted)
        #expect(text.contains(#"" : "#) == traits.isPrettyPrinted)
        let hasObjects = !((tree["objects"] as? [Any]) ?? []).isEmpty
        for key in ["floors", "sections", "story", "polygonCorners", "parentIdentifier", "attributes"] where key != "attributes" || hasObjects {
            #expect(text.contains("\"\(key)\"") == !traits.isIOS16, "\(key)")
        }
    }

    @Test("a scan derives plausible values", arguments: indices)
    func scansDerivePlausibleValues(index: Int) throws {
        let traits = Self.generator.traits(at: index)
        let room = try CapturedRoom(json: Self.generator.scan(at: index))
        #expect(room.wallCount >= 2)
        #expect(room.doorCount >= 1)
        #expect((1 ... 50).contains(room.floorArea))
        #expect((1 ... 2.85).contains(room.ceilingHeight))
        #expect(room.wallLength > 2)
        #expect(room.floors.count == (traits.isIOS16 ? 0 : 1))
        #expect(room.sections.isEmpty == traits.isIOS16)

        // Whole walls outline the floor: their hull is the floor of a rectangular room, and
        // more than the floor of an L-shaped one.
        let hullArea = CapturedRoom(walls: room.walls).floorArea
        if !traits.isPartial, !traits.isIOS16 {
            switch traits.shape {
            case .rectangular: #expect(abs(hullArea - room.floorArea) <= 1e-4 * room.floorArea)
            case .lShaped: #expect(hullArea > room.floorArea * 1.05)
            }
        }
    }

    @Test("a broken scan fails to decode, with the defect its name says", arguments: 0 ..< 21)
    func brokenScansFail(index: Int) {
        let (json, defect) = Self.generator.brokenScan(at: index)
        #expect(RoomScanGenerator.Defect(rawValue: defect) == RoomScanGenerator.Defect.allCases[index % 7])
        #expect(throws: RoomJSONError.self, "\(defect)") { try CapturedRoom(json: json) }
        #expect(throws: (any Error).self, "\(defect)") { try JSONDecoder().decode(CapturedRoom.self, from: Data(json)) }
        for outcome in RoomScan.pipeline.evaluate(json: json, selection: RoomScan.payloadProcessors) {
            guard case .failed(.decoding, _) = outcome else {
                Issue.record("\(defect): expected a decoding failure, got \(outcome)")
                continue
            }
        }
        // room_type reads floor_area, the first of its inputs, which failed.
        let roomType = RoomScan.processors.count - 1
        #expect(RoomScan.processors[roomType].name == "room_type")
        #expect(RoomScan.pipeline.evaluate(json: json, selection: [roomType]) == [.failed(.upstream, "input processor floor_area failed for this record")])
    }
}
