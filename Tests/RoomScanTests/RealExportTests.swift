import Foundation
import Rederive
import RoomScan
import Testing

@Suite("The pipeline on real RoomPlan exports")
struct RealExportTests {
    @Test("the fixtures hold all thirteen exports with their attribution")
    func fixturesArePresent() throws {
        #expect(Fixtures.exportNames.count == 13)
        let sources = try String(contentsOf: Fixtures.directory.appending(path: "roomplan/SOURCES.md"), encoding: .utf8)
        for name in Fixtures.exportNames {
            #expect(sources.contains(name))
        }
    }

    @Test("every column of every export matches the Python reference", arguments: Fixtures.exportNames)
    func everyColumnMatchesReference(name: String) throws {
        let expected = try #require(try Fixtures.expected().fixtures[name])
        let values = deriveAll(RoomScan.pipeline, try Fixtures.export(name))
        expectColumns(values, of: RoomScan.pipeline.outputColumns, equal: expected, name)
    }

    @Test("the iOS 16 form of every export matches the Python reference", arguments: Fixtures.exportNames)
    func ios16VariantMatchesReference(name: String) throws {
        let expected = try #require(try Fixtures.expected().ios16Variants[name])
        let variant = try JSONText.ios16Variant(of: try Fixtures.export(name))
        let values = deriveAll(RoomScan.pipeline, variant)
        expectColumns(values, of: RoomScan.pipeline.outputColumns, equal: expected, "\(name) (iOS 16)")
    }

    @Test("an iOS 16 export has no floors or sections and measures its floor from the walls")
    func ios16VariantFallsBackToWalls() throws {
        let name = "theLodgeBots__open3dFloorplan__test-roomplan.json"
        let room = try CapturedRoom(json: try JSONText.ios16Variant(of: try Fixtures.export(name)))
        #expect(room.floors.isEmpty)
        #expect(room.sections.isEmpty)
        #expect(room.wallCount == 4)
        #expect(room.sectionLabelsJSON == "[]")
        // The four walls of this rectangular room are 4.62 m and 3.33 m long.
        let lengths = room.walls.map(\.length).sorted()
        #expect(abs(room.floorArea - lengths[0] * lengths[3]) < 0.01)
    }
}
