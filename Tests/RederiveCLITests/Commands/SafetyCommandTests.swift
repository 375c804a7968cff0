import Foundation
import GRDB
import RederiveTestSupport
import Testing

@Suite("Safety commands", .timeLimit(.minutes(5)))
struct SafetyCommandTests {
    @Test(arguments: TestStore.available)
    func resetRefusesWithoutYesAndLeavesEverything(store: TestStore) async throws {
        try await store.withHarness { harness in
            _ = try await harness.rederive("import", RealExports.exportsDirectory)
            _ = try await harness.rederive("run", "--progress", "none")
            let refused = try await harness.rederive("reset")
            #expect(refused.status == 1)
            #expect(refused.errors.contains("pass --yes"))
            #expect(refused.errors.split(separator: "\n").count == 1)
            let stamps = { try await harness.count("SELECT count(*) FROM rederive_stamps") }
            #expect(try await stamps() > 0)
            let reset = try await harness.rederive("reset", "--yes")
            #expect(reset.status == 0, "\(reset.errors)")
            #expect(reset.output.contains("reset 13 records of room_scans"), "\(reset.output)")
            #expect(try await stamps() == 0)
            #expect(try await harness.count("SELECT count(*) FROM room_scans_derived WHERE floor_area_sqm IS NOT NULL") == 0)
            let again = try await harness.rederive("run", "--progress", "none")
            #expect(again.output.contains("13 derived"), "\(again.output)")
        }
    }

    @Test func backupRefusesToReplaceAFileAndRestoreBringsItBack() async throws {
        try await CommandHarness.withHarness { harness in
            _ = try await harness.rederive("import", RealExports.exportsDirectory)
            _ = try await harness.rederive("run", "--progress", "none")
            let target = harness.directory.appendingPathComponent("copy.sqlite").path
            #expect(try await harness.rederive("backup", "--to", target).status == 0)
            let again = try await harness.rederive("backup", "--to", target)
            #expect(again.status == 1)
            #expect(again.errors.contains("\(target) exists; pass --force"))
            _ = try await harness.rederive("reset", "--yes")
            let restored = try await harness.rederive("restore", target)
            #expect(restored.status == 0, "\(restored.errors)")
            let count = try await harness.connection().read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM rederive_stamps") }
            #expect(count ?? 0 > 0)
        }
    }
}
