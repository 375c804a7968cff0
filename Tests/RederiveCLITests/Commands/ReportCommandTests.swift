import Foundation
import Testing

@Suite("HTML report commands", .timeLimit(.minutes(5)))
struct ReportCommandTests {
    @Test(arguments: TestStore.available)
    func aDryRunReportChartsEachChangedNumericColumnAndWritesNothingElse(store: TestStore) async throws {
        try await store.withHarness { harness in
            try await harness.rederive("generate", "--count", "40", "--corrupt", "0.1")
            try await harness.rederive("run", "--progress", "none")
            // Values as an older logic wrote them: floor areas 5 % low, one wall fewer in some rooms.
            try await harness.execute("UPDATE room_scans_derived SET floor_area_sqm = floor_area_sqm * 0.95")
            try await harness.execute("UPDATE room_scans_derived SET wall_count = wall_count - 1 WHERE id % 4 = 0")
            try await harness.rederive("invalidate")
            let status = try await harness.rederive("status", "--format", "json")
            let path = harness.directory.appendingPathComponent("dry.html").path

            let outcome = try await harness.rederive("run", "--dry-run", "--report", path)
            #expect(outcome.output.contains("dry run: derived"))
            #expect(outcome.errors.contains("wrote the report to \(path)"))
            let html = try String(contentsOfFile: path, encoding: .utf8)
            #expect(html.components(separatedBy: "data-chart=\"values\"").count - 1 == 2)
            #expect(html.components(separatedBy: "data-chart=\"differences\"").count - 1 == 2)
            #expect(html.contains("data-column=\"floor_area_sqm\""))
            #expect(html.contains("data-column=\"wall_count\""))
            #expect(html.contains("synthetic-1-"))
            #expect(try await harness.rederive("status", "--format", "json").output == status.output)

            let redacted = harness.directory.appendingPathComponent("redacted.html").path
            try await harness.rederive("run", "--dry-run", "--report", redacted, "--redact-keys")
            #expect(try !String(contentsOfFile: redacted, encoding: .utf8).contains("synthetic-1-"))
        }
    }

    @Test(arguments: TestStore.available)
    func theDatabaseReportShowsStatusRunsAndDistributions(store: TestStore) async throws {
        try await store.withHarness { harness in
            try await harness.rederive("generate", "--count", "30", "--corrupt", "0.1")
            try await harness.rederive("run", "--progress", "none")
            let path = harness.directory.appendingPathComponent("state.html").path
            let outcome = try await harness.rederive("report", path, "--sample", "10")
            #expect(outcome.status == 0)
            let html = try String(contentsOfFile: path, encoding: .utf8)
            #expect(html.contains("data-chart=\"status\""))
            #expect(html.contains("data-chart=\"run-rate\""))
            #expect(html.contains("values of 10 records chosen at random of 30"))
            #expect(html.contains("data-table=\"failures\""))
        }
    }

    @Test func misusedOptionsAndUnwritablePathsAreClearErrors() async throws {
        try await CommandHarness.withHarness { harness in
            let page = harness.directory.appendingPathComponent("state.html").path
            let missing = try await harness.rederive("report", page)
            #expect(missing.status == 1)
            #expect(missing.errors.contains("no database at"))
            #expect(!FileManager.default.fileExists(atPath: harness.databasePath))
            #expect(!FileManager.default.fileExists(atPath: page))

            try await harness.rederive("generate", "--count", "3")
            #expect(try await harness.rederive("run", "--report", "x.html").status == 64)
            #expect(try await harness.rederive("run", "--dry-run", "--redact-keys").status == 64)
            let unwritable = harness.directory.appendingPathComponent("missing/dir/state.html").path
            let outcome = try await harness.rederive("report", unwritable)
            #expect(outcome.status == 1)
            #expect(outcome.errors.contains("cannot write the report to \(unwritable)"))
        }
    }
}
