import Foundation
import Testing

@Suite("rederive generate and demo", .timeLimit(.minutes(5)))
struct GeneratedCorpusTests {
    @Test func generateIsDeterministicAndBreaksAboutTheAskedFraction() async throws {
        try await CommandHarness.withHarness { harness in
            let first = try await harness.rederive("generate", "--count", "300", "--seed", "5", "--corrupt", "0.1")
            #expect(first.status == 0, "\(first.errors)")
            #expect(first.output.contains("300 new"))
            let again = try await harness.rederive("generate", "--count", "300", "--seed", "5", "--corrupt", "0.1")
            #expect(again.output.contains("0 new, 0 replaced, 300 unchanged"))

            let run = try await harness.rederive("run", "--progress", "none")
            #expect(run.status == 3)
            let failures = try await harness.rederive("failures", "--format", "json", "--processor", "floor_area")
            let failed = try #require(try JSONSerialization.jsonObject(with: Data(failures.output.utf8)) as? [[String: Any]])
            #expect((10...60).contains(failed.count), "\(failed.count) broken of 300")
        }
    }

    @Test func theDemoRunsEndToEndAndExplainsItself() async throws {
        try await CommandHarness.withHarness { harness in
            let path = harness.directory.appendingPathComponent("rederive-demo.sqlite").path
            let demo = try await harness.rederive("demo", "--db", path, "--count", "200")
            #expect(demo.status == 0, "\(demo.errors)")
            #expect(demo.output.contains("What happened:"))
            #expect(demo.output.contains("$ rederive run"))
            // The first run derives every record but the broken ones; after invalidating one processor,
            // the second finds every value it derived unchanged and the broken records failing again.
            let runs = demo.output.matches(of: #/run \d+ completed: [^:]+: (\d+) derived, (\d+) unchanged, (\d+) failed/#).map {
                [$0.1, $0.2, $0.3].compactMap { Int($0) }
            }
            try #require(runs.count == 2, "\(demo.output)")
            let (first, second) = (runs[0], runs[1])
            let (derived, failed) = (first[0], first[2])
            #expect(first[1] == 0)
            #expect(failed > 0 && derived + failed == 200, "\(first)")
            #expect(second == [0, derived, failed])
            // A second demo rebuilds its own database.
            let again = try await harness.rederive("demo", "--db", path, "--count", "50")
            #expect(again.status == 0, "\(again.errors)")
        }
    }
}
