import Foundation
import Rederive
import RederiveCLI
import RederiveTestSupport
import Testing

@Suite("rederive rollback", .timeLimit(.minutes(5)))
struct RollbackCommandTests {
    /// Floor areas by key, as numbers, whichever store printed them.
    static func floorAreas(_ harness: CommandHarness) async throws -> [String: Double?] {
        let rows = try await harness.rows("""
            SELECT s.scan_id, d.floor_area_sqm FROM room_scans s LEFT JOIN room_scans_derived d ON d.id = s.id ORDER BY s.scan_id
            """)
        return Dictionary(uniqueKeysWithValues: rows.map { ($0[0], Double($0[1])) })
    }

    static func upToDate(_ harness: CommandHarness, _ processor: String) async throws -> Int? {
        let status = try await harness.rederive("status", "--format", "json")
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])
        let processors = try #require(parsed["processors"] as? [[String: Any]])
        return processors.first { $0["name"] as? String == processor }?["upToDate"] as? Int
    }

    @Test(arguments: TestStore.available)
    func rollbackPutsBackWhatARunReplacedAndSkipsWhatMovedOn(store: TestStore) async throws {
        try await store.withHarness { harness in
            _ = try await harness.rederive("import", RealExports.exportsDirectory)
            #expect(try await harness.rederive("run", "--progress", "none").status == 0)  // run 1
            let original = try await Self.floorAreas(harness)
            #expect(original.count == 13 && original.values.allSatisfy { $0 != nil })

            // Run 2 replaces wrong floor areas with right ones.
            try await harness.execute("UPDATE room_scans_derived SET floor_area_sqm = floor_area_sqm * 2")
            _ = try await harness.rederive("invalidate", "--processor", "floor_area")
            let second = try await harness.rederive("run", "--progress", "none")
            #expect(second.output.contains("13 derived"), "\(second.output)")
            #expect(try await Self.floorAreas(harness) == original)
            #expect(try await Self.upToDate(harness, "room_type") == 13)

            // One record's payload changes after run 2: its values are not run 2's to put back.
            let moved = (RealExports.names[0] as NSString).deletingPathExtension
            try await harness.replacePayload(key: moved, with: try RealExports.bytes(RealExports.names[0]) + Array(" ".utf8))

            let rollback = try await harness.rederive("rollback", "2")
            #expect(rollback.status == 0, "\(rollback.errors)")
            #expect(rollback.output.contains("rolled back run 2: 12 restored, 1 skipped"), "\(rollback.output)")
            let skipped = try #require(rollback.output.split(separator: "\n").first { $0.contains("skipped \(moved)") })
            #expect(skipped.contains("floor_area: its payload changed since run 2"), "\(skipped)")
            let restored = try await Self.floorAreas(harness)
            for (key, area) in original {
                #expect(restored[key] == (key == moved ? area : area.map { $0 * 2 }), "\(key)")
            }
            // The restored stamps are the invalidated ones, and room_type read the values now replaced.
            #expect(try await Self.upToDate(harness, "floor_area") == 0)
            #expect(try await Self.upToDate(harness, "room_type") == 0)
            #expect(try await Self.upToDate(harness, "element_counts") == 12)

            let again = try await harness.rederive("rollback", "2")
            #expect(again.output.contains("rolled back run 2: 0 restored, 1 skipped"), "\(again.output)")
            _ = try await harness.rederive("run", "--progress", "none")
            #expect(try await Self.floorAreas(harness) == original)
            #expect(try await harness.rederive("verify").status == ExitStatus.success)

            let unknown = try await harness.rederive("rollback", "99")
            #expect(unknown.status == 1)
            #expect(unknown.errors.contains("no run 99 in"), "\(unknown.errors)")
        }
    }

    @Test(arguments: TestStore.available)
    func rollingBackAFirstDerivationLeavesRecordsToDeriveAgain(store: TestStore) async throws {
        try await store.withHarness { harness in
            _ = try await harness.rederive("generate", "--count", "20", "--seed", "3", "--corrupt", "0.1")
            _ = try await harness.rederive("run", "--progress", "none")
            let derived = try await Self.floorAreas(harness)
            let rollback = try await harness.rederive("rollback", "1")
            #expect(rollback.status == 0, "\(rollback.errors)")
            let line = try #require(rollback.output.split(separator: "\n").first)
            #expect(line.hasPrefix("rolled back run 1: ") && line.hasSuffix(" restored, 0 skipped"), "\(line)")
            #expect(try await Self.floorAreas(harness).values.allSatisfy { $0 == nil })
            #expect(try await Self.upToDate(harness, "floor_area") == 0)
            // Failures are not derivations: they stay, and the run does not try them again.
            let run = try await harness.rederive("run", "--progress", "none")
            #expect(run.status == ExitStatus.success, "\(run.output)")
            #expect(run.output.contains("\(derived.values.filter { $0 != nil }.count) derived, 0 unchanged, 0 failed"), "\(run.output)")
            #expect(try await Self.floorAreas(harness) == derived)
        }
    }

    @Test(arguments: TestStore.available)
    func aRollbackAfterTheDemoAndManyIdleRunsRestoresOrSaysWhyItCannot(store: TestStore) async throws {
        try await store.withHarness { harness in
            _ = try await harness.rederive("generate", "--count", "12", "--seed", "5")
            #expect(try await harness.rederive("run", "--progress", "none").status == 0)  // run 1 derives everything
            // As the demo does: one processor derives again, to the same values (run 2).
            _ = try await harness.rederive("invalidate", "--processor", "floor_area")
            let second = try await harness.rederive("run", "--progress", "none")
            #expect(second.output.contains("0 derived, 12 unchanged"), "\(second.output)")
            // Cron jobs with nothing to do, more of them than the window of kept values.
            for _ in 0...RollbackRules.defaultKeptRuns {
                #expect(try await harness.rederive("run", "--progress", "none").status == 0)
            }

            let idle = try await harness.rederive("rollback", "2")
            #expect(idle.status == 0, "\(idle.errors)")
            #expect(idle.output == "rolled back run 2: it changed no values, so there was nothing to put back\n", "\(idle.output)")
            let rollback = try await harness.rederive("rollback", "1")
            #expect(rollback.status == 0, "\(rollback.errors)")
            #expect(rollback.output.hasPrefix("rolled back run 1: "), "\(rollback.output)")
            #expect(rollback.output.contains(" restored, 0 skipped") && !rollback.output.contains(": 0 restored"), "\(rollback.output)")
            #expect(try await Self.upToDate(harness, "floor_area") == 0)

            let again = try await harness.rederive("rollback", "1")
            #expect(again.status == ExitStatus.failure)
            #expect(again.output.isEmpty, "\(again.output)")
            #expect(again.errors.hasPrefix("rederive: nothing run 1 replaced is kept in "), "\(again.errors)")
            #expect(again.errors.hasSuffix("it was rolled back already, or reset cleared it\n"), "\(again.errors)")
        }
    }
}
