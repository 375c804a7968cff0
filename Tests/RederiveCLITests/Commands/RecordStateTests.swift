import Foundation
import Rederive
import Testing

/// Up to date, stale and failed mean one thing each, everywhere: the counts are disjoint and add up
/// to the records, in `status`, in the HTML state report and in a dry run's header.
@Suite("record states", .timeLimit(.minutes(5)))
struct RecordStateTests {
    @Test func statusCountsAreDisjointAndAddUpToTheRecords() async throws {
        try await CommandHarness.withHarness { harness in
            _ = try await harness.rederive("generate", "--count", "300", "--corrupt", "0.01")
            #expect(try await harness.rederive("run", "--progress", "none").status == 3)
            _ = try await harness.rederive("invalidate", "--key", "synthetic-1-0000001")
            let json = try await harness.rederive("status", "--format", "json")
            let root = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
            let processors = try #require(root["processors"] as? [[String: Any]])
            #expect(processors.count == 6)
            for processor in processors {
                let (upToDate, stale, failed) = (processor["upToDate"] as? Int, processor["stale"] as? Int, processor["failed"] as? Int)
                // 3 broken payloads fail every processor; one record was invalidated; the rest are up to date.
                #expect(failed == 3 && stale == 1 && upToDate == 296, "\(processor)")
            }
            let table = try await harness.rederive("status")
            let row = try #require(table.output.split(separator: "\n").first { $0.hasPrefix("roomscan  floor_area") })
            #expect(row.hasSuffix("296      1       3"), "\(table.output)")

            // The state report counts the same.
            let path = harness.directory.appendingPathComponent("state.html").path
            #expect(try await harness.rederive("report", path).status == 0)
            let html = try String(contentsOfFile: path, encoding: .utf8)
            let cells = try #require(html.firstMatch(of: /<td>floor_area<\/td>.*?<\/tr>/.dotMatchesNewlines()))
            let numbers = cells.output.matches(of: /<td class="num">([0-9,]+)<\/td>/).map { String($0.output.1) }
            #expect(numbers == ["300", "296", "1", "3"], "\(cells.output)")
        }
    }

    @Test func theDryRunHeaderSaysHowManyWouldFail() async throws {
        try await CommandHarness.withHarness { harness in
            _ = try await harness.rederive("generate", "--count", "300", "--corrupt", "0.01")
            let dryRun = try await harness.rederive("run", "--dry-run")
            #expect(dryRun.output.hasPrefix("dry run: derived 300 of 300 stale records, of which 3 would fail; nothing was written"), "\(dryRun.output)")
        }
    }

    @Test func eachStateHasOneDefinition() {
        #expect(RecordState.allCases.map(\.name) == ["up to date", "stale", "failed"])
        for state in RecordState.allCases {
            #expect(!state.definition.isEmpty && !state.definition.contains("\n"))
        }
        let status = ProcessorStatus(pipeline: "p", name: "n", version: 1, records: 10, upToDate: 6, failed: 3)
        #expect(RecordState.allCases.map(status.count) == [6, 1, 3])
    }
}
