import Foundation
import GRDB
import Testing

/// `run --log-level`: the engine's log on standard error, one line per event with its metadata.
@Suite("Log level", .timeLimit(.minutes(5)))
struct LogLevelTests {
    @Test func infoLogsTheRunAndEachFailureWithItsMetadataAndNothingWithoutIt() async throws {
        try await CommandHarness.withHarness { harness in
            try await harness.rederive("generate", "--count", "60", "--seed", "9", "--corrupt", "0.1")
            let logged = try await harness.rederive("run", "--progress", "none", "--log-level", "info")
            #expect(logged.status == 3)
            let lines = logged.errors.split(separator: "\n").map(String.init)
            #expect(lines.contains { $0.contains(" info run started ") && $0.contains("pipelines=roomscan") })
            #expect(lines.contains { $0.contains(" info run ended ") && $0.contains("status=completed") })
            let failures = lines.filter { $0.contains(" info record failed ") }
            let failed = try await harness.connection().read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM rederive_failures WHERE current = 1") ?? 0
            }
            // One line per failed record and processor, naming both, of a failure this run recorded.
            #expect(failures.count == failed)
            #expect(failures.allSatisfy {
                $0.contains("pipeline=roomscan") && $0.contains("processor=") && $0.contains("record=") && $0.contains("kind=")
            })
            #expect(!lines.contains { $0.contains(" debug ") })

            let quiet = try await harness.rederive("run", "--progress", "none", "--retry-failed")
            #expect(quiet.status == 3)
            #expect(!quiet.errors.contains("record failed") && !quiet.errors.contains("run started"))

            let debug = try await harness.rederive("run", "--progress", "none", "--log-level", "debug", "--retry-failed")
            #expect(debug.errors.contains(" debug committed "))
        }
    }

    @Test func anUnknownLevelIsAUsageError() async throws {
        try await CommandHarness.withHarness { harness in
            let outcome = try await harness.rederive("run", "--log-level", "loud")
            #expect(outcome.status == 64)
            #expect(outcome.errors.contains("--log-level"))
        }
    }
}
