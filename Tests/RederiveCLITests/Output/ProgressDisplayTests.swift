import Foundation
import RederiveTestSupport
import Testing

@Suite("progress display", .timeLimit(.minutes(5)))
struct ProgressDisplayTests {
    @Test func theBarKeepsTheRunsHeaderOnItsOwnLineAboveIt() async throws {
        try await CommandHarness.withHarness { harness in
            _ = try await harness.rederive("import", RealExports.exportsDirectory)
            let run = try await harness.rederive("run", "--progress", "bar", "--batch-size", "4")
            #expect(run.status == 0)
            // The header ends with a line break before the bar first draws itself, so the bar's
            // carriage returns and line erasures never reach it.
            #expect(run.errors.hasPrefix("run 1: 13 records to derive\n\r\u{1B}[2K"), "\(run.errors.debugDescription)")
            #expect(run.errors.components(separatedBy: "records to derive").count == 2)
            let lastDrawing = try #require(run.errors.components(separatedBy: "\r\u{1B}[2K").last)
            #expect(lastDrawing.contains(" 13/13 100%") && lastDrawing.hasSuffix("failures 0\n"), "\(lastDrawing.debugDescription)")
        }
    }

    @Test func plainProgressOpensWithTheSameHeader() async throws {
        try await CommandHarness.withHarness { harness in
            _ = try await harness.rederive("import", RealExports.exportsDirectory)
            let run = try await harness.rederive("run", "--progress", "plain")
            #expect(run.errors.hasPrefix("run 1: 13 records to derive\n"))
        }
    }
}

extension ProgressDisplayTests {
    @Test func jsonProgressCarriesTheTimeLeft() async throws {
        try await CommandHarness.withHarness { harness in
            _ = try await harness.rederive("import", RealExports.exportsDirectory)
            let run = try await harness.rederive("run", "--progress", "json", "--batch-size", "4")
            let events = try run.output.split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            let progress = events.filter { $0["event"] as? String == "progress" }
            #expect(progress.count >= 3)
            for event in progress {
                #expect(event.keys.contains("etaSeconds"), "\(event)")
            }
            #expect((progress.last?["etaSeconds"] as? Double) == 0, "\(progress.last ?? [:])")
        }
    }
}
