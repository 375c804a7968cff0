import Rederive
import RoomScan
import Testing

@Suite("The RoomScan pipeline")
struct RoomScanPipelineTests {
    @Test("the pipeline is bound to room_scans with a companion table")
    func pipelineBinding() {
        let pipeline = RoomScan.pipeline
        #expect(pipeline.name == "roomscan")
        #expect(pipeline.table == "room_scans")
        #expect(pipeline.idColumn == "id")
        #expect(pipeline.keyColumn == "scan_id")
        #expect(pipeline.payloadColumn == "payload")
        #expect(pipeline.layout == .companion(table: "room_scans_derived"))
        #expect(RoomScan.pipeline(layout: .inline).layout == .inline)
        #expect(RoomScan.pipeline(layout: .inline).outputColumns == pipeline.outputColumns)
    }

    @Test("the processors have stable names, version 1 and the documented columns")
    func processorsAndColumns() {
        #expect(RoomScan.processors.map(\.name) == [
            "floor_area", "element_counts", "wall_metrics", "object_categories", "section_labels",
        ])
        #expect(RoomScan.processors.allSatisfy { $0.version == 1 })
        let columns = RoomScan.pipeline.outputColumns
        #expect(columns.map(\.name) == [
            "floor_area_sqm", "wall_count", "door_count", "window_count", "opening_count", "object_count",
            "wall_length_m", "ceiling_height_m", "object_categories", "section_labels",
        ])
        #expect(columns.map(\.type) == [.real, .integer, .integer, .integer, .integer, .integer, .real, .real, .text, .text])
        #expect(columns.allSatisfy { $0.defaultValue == .null })
    }

    @Test("an empty object derives zeros and empty JSON")
    func emptyObjectDerivesZeros() {
        let values = deriveAll(RoomScan.pipeline, Array("{}".utf8))
        #expect(values == [
            .real(0), .integer(0), .integer(0), .integer(0), .integer(0), .integer(0),
            .real(0), .real(0), .text("{}"), .text("[]"),
        ])
    }

    @Test("a payload that does not decode fails every selected processor as a decoding failure")
    func undecodablePayloadFailsEveryProcessor() {
        let outcomes = RoomScan.pipeline.evaluate(json: Array("[]".utf8), selection: [0, 2, 4])
        #expect(outcomes.count == 3)
        for outcome in outcomes {
            guard case .failed(.decoding, let message) = outcome else {
                Issue.record("expected a decoding failure, got \(outcome)")
                continue
            }
            #expect(!message.isEmpty && !message.contains("\n"))
        }
    }
}
