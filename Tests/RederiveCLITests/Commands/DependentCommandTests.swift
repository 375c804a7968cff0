import Foundation
import GRDB
import RederiveCLI
import RederiveTestSupport
import RoomScan
import Testing

/// The commands around dependent processors, on RoomScan's `room_type`: status shows what each
/// processor derives from, `invalidate --downstream` marks dependents too, and a run that only has
/// dependents to derive inflates no payload (RederiveTests proves it reads none).
@Suite("Dependent processors on the command line", .timeLimit(.minutes(5)))
struct DependentCommandTests {
    @Test(arguments: TestStore.available)
    func statusShowsWhatEachProcessorDerivesFrom(store: TestStore) async throws {
        try await store.withHarness { harness in
            _ = try await harness.rederive("import", RealExports.exportsDirectory)
            let table = try await harness.rederive("status")
            let roomType = try #require(table.output.split(separator: "\n").first { $0.contains("room_type") })
            #expect(roomType.contains("floor_area, object_categories, section_labels"), "\(roomType)")
            let floorArea = try #require(table.output.split(separator: "\n").first { $0.contains(" floor_area ") })
            #expect(floorArea.contains("payload"), "\(floorArea)")

            let json = try await harness.rederive("status", "--format", "json")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
            let processors = try #require(object["processors"] as? [[String: Any]])
            let sources = Dictionary(uniqueKeysWithValues: processors.map { ($0["name"] as? String ?? "", $0["derivesFrom"] as? [String] ?? []) })
            #expect(sources["room_type"] == ["floor_area", "object_categories", "section_labels"])
            #expect(sources["wall_metrics"] == ["payload"])
        }
    }

    @Test(arguments: TestStore.available)
    func invalidateDownstreamMarksTheDependentsToo(store: TestStore) async throws {
        try await store.withHarness { harness in
            _ = try await harness.rederive("import", RealExports.exportsDirectory)
            _ = try await harness.rederive("run", "--progress", "none")
            let records = RealExports.names.count

            let alone = try await harness.rederive("invalidate", "--processor", "floor_area")
            #expect(alone.output.contains("stale for floor_area\n") || alone.output.hasSuffix("stale for floor_area"), "\(alone.output)")
            #expect(try await staleCounts(harness) == ["floor_area": records])
            // floor_area derives its values again, unchanged: room_type is not run.
            _ = try await harness.rederive("run", "--progress", "none")
            #expect(try await staleCounts(harness).isEmpty)

            let downstream = try await harness.rederive("invalidate", "--processor", "floor_area", "--downstream")
            #expect(downstream.output.contains("stale for floor_area, room_type"), "\(downstream.output)")
            #expect(try await staleCounts(harness) == ["floor_area": records, "room_type": records])

            let refused = try await harness.rederive("invalidate", "--downstream")
            #expect(refused.status == ExitStatus.usage)
            #expect(refused.errors.contains("--downstream needs --processor"))
        }
    }

    @Test func aRunOfOnlyDependentsInflatesNoPayload() async throws {
        try await CommandHarness.withHarness { harness in
            _ = try await harness.rederive("import", RealExports.exportsDirectory)
            _ = try await harness.rederive("run", "--progress", "none")
            _ = try await harness.rederive("invalidate", "--processor", "room_type")
            // Payloads that could not even be inflated, written behind the trigger's back so that the
            // records do not become stale: a run that read one would record a failure.
            try await harness.connection().write { db in
                let triggers = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%payload_updated'")
                #expect(triggers.count == 1)
                for trigger in triggers { try db.execute(sql: "DROP TRIGGER \"\(trigger)\"") }
                try db.execute(sql: "UPDATE room_scans SET payload = x'00'")
            }
            let run = try await harness.rederive("run", "--progress", "none")
            #expect(run.status == ExitStatus.success, "\(run.output)\(run.errors)")
            #expect(try await staleCounts(harness).isEmpty)
            #expect(try await harness.connection().read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM rederive_failures") } == 0)
        }
    }

    /// Per processor, how many records are stale; processors with none are left out.
    private func staleCounts(_ harness: CommandHarness) async throws -> [String: Int] {
        let json = try await harness.rederive("status", "--format", "json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let processors = try #require(object["processors"] as? [[String: Any]])
        var counts: [String: Int] = [:]
        for processor in processors {
            if let name = processor["name"] as? String, let stale = processor["stale"] as? Int, stale > 0 { counts[name] = stale }
        }
        return counts
    }
}
