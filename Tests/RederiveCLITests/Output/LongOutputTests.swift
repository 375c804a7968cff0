import Foundation
import Testing

/// Per-record lists that can run to thousands of lines are counted by reason, with a few examples,
/// and listed in full only when asked.
@Suite("long outputs", .timeLimit(.minutes(5)))
struct LongOutputTests {
    @Test func rollbackCountsSkippedRecordsByReason() async throws {
        try await CommandHarness.withHarness { harness in
            _ = try await harness.rederive("generate", "--count", "60")
            #expect(try await harness.rederive("run", "--progress", "none").status == 0)
            // Every payload changes: every record and processor of run 1 is skipped.
            try await harness.execute("UPDATE room_scans SET payload = payload || x'00'")
            let rollback = try await harness.rederive("rollback", "1")
            #expect(rollback.status == 0)
            let lines = rollback.output.split(separator: "\n")
            #expect(lines.first == "rolled back run 1: 0 restored, 360 skipped", "\(rollback.output)")
            #expect(lines.count == 3, "\(rollback.output)")
            #expect(lines[1].hasPrefix("  360 skipped, its payload changed since run 1: synthetic-1-"), "\(lines[1])")
            #expect(lines[1].hasSuffix(" and 357 more"), "\(lines[1])")
            #expect(lines[2].contains("--verbose"), "\(lines[2])")

            let verbose = try await harness.rederive("rollback", "1", "--verbose")
            #expect(verbose.output.split(separator: "\n").count == 361, "\(verbose.output.prefix(500))")
        }
    }

    @Test func aDryRunSummarisesTheFailuresItWouldRecord() async throws {
        try await CommandHarness.withHarness { harness in
            _ = try await harness.rederive("generate", "--count", "200", "--corrupt", "0.2")
            let dryRun = try await harness.rederive("run", "--dry-run")
            let failures = try #require(dryRun.output.split(separator: "\n").drop { !$0.hasSuffix("would be recorded:") }.dropFirst().map(String.init) as [String]?)
            #expect(!failures.isEmpty && failures.count <= 20, "\(dryRun.output)")
            #expect(failures.last?.contains("--verbose") == true, "\(dryRun.output)")
            let verbose = try await harness.rederive("run", "--dry-run", "--verbose")
            let listed = verbose.output.split(separator: "\n").drop { !$0.hasSuffix("would be recorded:") }.dropFirst()
            let header = try #require(verbose.output.split(separator: "\n").first { $0.hasSuffix("would be recorded:") })
            #expect(header.hasPrefix("\(listed.count) failures"), "\(header) with \(listed.count) lines")
            #expect(listed.count > 20)
        }
    }

    @Test func aLongFailuresTableShowsTheFirstFifty() async throws {
        try await CommandHarness.withHarness { harness in
            _ = try await harness.rederive("generate", "--count", "600", "--corrupt", "0.2")
            _ = try await harness.rederive("run", "--progress", "none")
            let table = try await harness.rederive("failures")
            let lines = table.output.split(separator: "\n")
            #expect(lines.count == 52, "\(table.output.prefix(300))")
            #expect(lines.last?.hasSuffix(" more; list every one with --verbose, or --format csv or json") == true, "\(lines.last ?? "")")
            let every = try await harness.rederive("failures", "--verbose")
            let csv = try await harness.rederive("failures", "--format", "csv", "--group", "record")
            #expect(every.output.split(separator: "\n").count == csv.output.split(separator: "\n").count)
            #expect(every.output.split(separator: "\n").count > 60)
        }
    }

    @Test func importNamesTheFirstSkippedFilesAndCountsTheRest() async throws {
        try await CommandHarness.withHarness { harness in
            let directory = harness.directory.appendingPathComponent("exports")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for index in 0..<25 {
                try Data("{ not json".utf8).write(to: directory.appendingPathComponent(String(format: "broken-%02d.json", index)))
            }
            try Data("{}".utf8).write(to: directory.appendingPathComponent("fine.json"))
            let outcome = try await harness.rederive("import", directory.path)
            #expect(outcome.status == 3)
            let lines = outcome.errors.split(separator: "\n")
            #expect(lines.count == 21, "\(outcome.errors)")
            #expect(lines.last == "rederive: 5 more files skipped, not named here; name every one with --verbose", "\(outcome.errors)")
            #expect(outcome.output.hasPrefix("imported 1 of 26 files into room_scans"), "\(outcome.output)")
            let verbose = try await harness.rederive("import", directory.path, "--verbose")
            #expect(verbose.errors.split(separator: "\n").count == 25, "\(verbose.errors)")
        }
    }

    @Test func verifyShowsTheFirstDifferencesOfEachColumn() async throws {
        try await CommandHarness.withHarness { harness in
            _ = try await harness.rederive("generate", "--count", "30")
            _ = try await harness.rederive("run", "--progress", "none")
            try await harness.execute("UPDATE room_scans_derived SET wall_count = 99")
            let table = try await harness.rederive("verify")
            #expect(table.status == 4)
            let lines = table.output.split(separator: "\n")
            #expect(lines.filter { $0.contains("wall_count") }.count == 5, "\(table.output)")
            #expect(lines.contains("… and 25 more; list every one with --verbose or --format json"), "\(table.output)")
            #expect(lines.last == "verified 30 records: 30 values of 30 records differ", "\(table.output)")
            let every = try await harness.rederive("verify", "--verbose")
            #expect(every.output.split(separator: "\n").filter { $0.contains("wall_count") }.count == 30)
        }
    }
}
