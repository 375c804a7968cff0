import Foundation
@testable import RederiveCLI
import Testing

/// `--format` means the same on every command, tables keep their columns, and counts read right.
@Suite("output formats", .timeLimit(.minutes(5)))
struct OutputFormatTests {
    @Test func everyListingCommandWritesEveryFormatItsHelpLists() async throws {
        try await CommandHarness.withHarness { harness in
            _ = try await harness.rederive("generate", "--count", "100", "--corrupt", "0.03")
            _ = try await harness.rederive("run", "--progress", "none")
            let headers = [
                "status": "pipeline,processor,version,derivesFrom,records,upToDate,stale,failed",
                "history": "id,startedAt,endedAt,status,derived,unchanged,failed,skipped,processors,state",
                "verify": "pipeline,recordId,key,processor,column,stored,derived,failure,state",
                "failures": "recordId,key,processor,version,kind,message,runId,at",
            ]
            for (command, header) in headers {
                let help = try await harness.rederive(command, "--help")
                let options = try #require(help.output.components(separatedBy: "OPTIONS:").last)
                let listed = try #require(options.firstMatch(of: /--format <format>.*?\)/.dotMatchesNewlines())).output
                    .replacing(/\s+/, with: " ")
                #expect(listed.hasSuffix("(values: \(OutputFormat.allCases.map(\.rawValue).joined(separator: ", ")); default: table)"), "\(listed)")
                for format in OutputFormat.allCases {
                    #expect(listed.contains(format.rawValue), "\(command) --help: \(listed)")
                    let outcome = try await harness.rederive(command, "--format", format.rawValue)
                    #expect(outcome.status == 0, "\(command) --format \(format): \(outcome.errors)")
                    switch format {
                    case .csv: #expect(outcome.output.hasPrefix(header + "\n"), "\(command): \(outcome.output.prefix(200))")
                    case .json: #expect(outcome.output.hasPrefix("{") || outcome.output.hasPrefix("["), "\(command): \(outcome.output.prefix(200))")
                    case .table: #expect(!outcome.output.hasPrefix(header), "\(command)")
                    }
                }
            }
            let csv = try await harness.rederive("status", "--format", "csv")
            #expect(csv.output.contains("\nroomscan,floor_area,1,payload,100,99,0,1\n"), "\(csv.output)")
        }
    }

    @Test func tableCellsWithLineBreaksAndTabsKeepTheirColumns() {
        let table = Format.table(
            ["key", "count"],
            [["plain", "1"], ["two\nlines", "22"], ["a\ttab", "333"], ["bell\u{7}\r", "4"]],
            numeric: [1]
        )
        let lines = table.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 5, "\(table)")
        #expect(Set(lines.map(\.count)).count == 1, "\(table)")
        #expect(lines[2].hasPrefix(#"two\nlines "#) && lines[2].hasSuffix(" 22"), "\(table)")
        #expect(lines[3].hasPrefix(#"a\ttab "#) && lines[3].hasSuffix(" 333"), "\(table)")
        #expect(lines[4].hasPrefix(#"bell\u{7}\r "#) && lines[4].hasSuffix(" 4"), "\(table)")
        #expect(!table.contains("\t") && !table.contains("\r"))
    }

    @Test func aKeyWithALineBreakStaysOnItsRowInFailures() async throws {
        try await CommandHarness.withHarness { harness in
            let directory = harness.directory.appendingPathComponent("exports")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data("{}".utf8).write(to: directory.appendingPathComponent("bad\nkey\twith tab.json"))
            #expect(try await harness.rederive("import", directory.path).status == 0)
            try await harness.execute("UPDATE room_scans SET payload = x'00'")
            #expect(try await harness.rederive("run", "--progress", "none").status == 3)
            let failures = try await harness.rederive("failures")
            let lines = failures.output.split(separator: "\n")
            #expect(lines.count == 2, "\(failures.output)")
            #expect(lines.last?.contains(#"bad\nkey\twith tab"#) == true, "\(failures.output)")
        }
    }

    @Test func countsOfOneAreSingular() async throws {
        try await CommandHarness.withHarness { harness in
            _ = try await harness.rederive("generate", "--count", "100", "--corrupt", "0.03")
            let run = try await harness.rederive("run", "--progress", "none")
            #expect(run.status == 3)
            #expect(run.output.contains("\n1 record failed; list it with `"), "\(run.output)")
            let invalidate = try await harness.rederive("invalidate", "--key", "synthetic-1-0000001")
            #expect(invalidate.output.hasPrefix("marked 1 record of room_scans stale"), "\(invalidate.output)")
            let plural = try await harness.rederive("invalidate", "--key", "synthetic-1-0000001", "--key", "synthetic-1-0000002")
            #expect(plural.output.hasPrefix("marked 2 records of room_scans stale"), "\(plural.output)")
        }
    }
}
