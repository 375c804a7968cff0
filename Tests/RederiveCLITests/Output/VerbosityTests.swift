import Foundation
import Testing

/// `-q/--quiet` and `-v/--verbose` on every command, and what a run's summary counts.
@Suite("Verbosity", .timeLimit(.minutes(5)))
struct VerbosityTests {
    @Test func quietSilencesARunButNotItsErrorsAndKeepsItsExitStatus() async throws {
        try await CommandHarness.withHarness { harness in
            try await harness.rederive("generate", "--count", "40", "--seed", "5", "--corrupt", "0.1")
            let quiet = try await harness.rederive("run", "--quiet")
            // Some records failed: the status says so though nothing is printed.
            #expect(quiet.status == 3)
            #expect(quiet.output.isEmpty, "\(quiet.output)")
            #expect(quiet.errors.isEmpty, "\(quiet.errors)")

            // The same run, unquieted, has progress on standard error and a summary on standard output.
            let loud = try await harness.rederive("run", "--retry-failed")
            #expect(loud.status == 3)
            #expect(loud.output.contains("completed"), "\(loud.output)")
            #expect(!loud.errors.isEmpty)

            // An error still shows, with its status.
            let missing = try await harness.rederive("run", "-q", "--db", harness.directory.appendingPathComponent("none.sqlite").path)
            #expect(missing.status == 1)
            #expect(missing.output.isEmpty)
            OneLineError.expect(missing.errors, mentioning: ["none.sqlite"])

            // Output asked for by name is still written.
            let json = try await harness.rederive("status", "-q", "--format", "json")
            #expect(json.status == 0)
            #expect(json.output.hasPrefix("{"), "\(json.output)")
            let table = try await harness.rederive("status", "-q")
            #expect(table.status == 0 && table.output.isEmpty && table.errors.isEmpty, "\(table.output)\(table.errors)")
        }
    }

    @Test func verboseShowsTheInfoLogThatADefaultRunDoesNot() async throws {
        try await CommandHarness.withHarness { harness in
            try await harness.rederive("generate", "--count", "20", "--seed", "6", "--corrupt", "0.1")
            let plain = try await harness.rederive("run", "--progress", "none")
            #expect(!plain.errors.contains(" info "), "\(plain.errors)")

            let verbose = try await harness.rederive("run", "--progress", "none", "--retry-failed", "-v")
            #expect(verbose.status == 3)
            let lines = verbose.errors.split(separator: "\n")
            #expect(lines.contains { $0.contains(" info run started ") }, "\(verbose.errors)")
            #expect(lines.contains { $0.contains(" info record failed ") })
            #expect(lines.contains { $0.contains(" info run ended ") })
            #expect(!lines.contains { $0.contains(" debug ") })
            // The summary is still there.
            #expect(verbose.output.contains("completed"), "\(verbose.output)")
        }
    }

    @Test func quietAndVerboseTogetherAreRefusedInOneLine() async throws {
        try await CommandHarness.withHarness { harness in
            try await harness.rederive("generate", "--count", "5", "--seed", "7")
            for arguments in [["run", "-q", "-v"], ["status", "--quiet", "--verbose"], ["failures", "-v", "-q"]] {
                let outcome = try await harness.rederive(arguments)
                #expect(outcome.status == 64, "\(arguments)")
                #expect(outcome.output.isEmpty)
                OneLineError.expect(outcome.errors, mentioning: ["--quiet", "--verbose"])
            }
            // --log-level must agree with them.
            let quietInfo = try await harness.rederive("run", "-q", "--log-level", "info")
            #expect(quietInfo.status == 64)
            OneLineError.expect(quietInfo.errors, mentioning: ["--quiet", "--log-level info"])
            let verboseError = try await harness.rederive("run", "-v", "--log-level", "error")
            #expect(verboseError.status == 64)
            OneLineError.expect(verboseError.errors, mentioning: ["--verbose", "--log-level error"])
            // Nothing ran.
            let status = try await harness.rederive("history", "--format", "json")
            #expect(status.status == 0 && !status.output.contains("\"id\""), "\(status.output)")
        }
    }

    @Test func aRunSummaryCountsRecordsOnceWhateverItsProcessors() async throws {
        try await CommandHarness.withHarness { harness in
            try await harness.rederive("generate", "--count", "12", "--seed", "8")
            let run = try await harness.rederive("run", "--progress", "none")
            #expect(run.status == 0)
            // roomscan has six processors: twelve records, not seventy-two results.
            #expect(
                run.output.hasPrefix("run 1 completed: 12 records, each counted once across 6 processors: 12 derived, 0 unchanged, 0 failed in "),
                "\(run.output)"
            )
        }
    }

    @Test func aDryRunAndStatusSayWhatTheirCountsCount() async throws {
        try await CommandHarness.withHarness { harness in
            try await harness.rederive("generate", "--count", "20", "--seed", "9", "--corrupt", "0.2")
            let dryRun = try await harness.rederive("run", "--dry-run")
            // The headline counts records; the failures are one per record and processor.
            #expect(dryRun.output.contains(" stale records, of which "), "\(dryRun.output)")
            #expect(dryRun.output.contains(" failures (one per record and processor) would be recorded:"), "\(dryRun.output)")
            try await harness.rederive("run", "--progress", "none")
            let status = try await harness.rederive("status")
            #expect(status.output.hasPrefix("\(harness.databasePath): 20 records; each processor's counts below are of records\n"), "\(status.output)")
        }
    }
}
