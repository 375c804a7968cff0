import Foundation
import GRDB
import Rederive
import RederiveCLI
import RoomScan
import Testing

/// `rederive failures`: one table line per record and cause; json and csv one entry per record and
/// processor unless asked for `--group record`.
@Suite("failures grouped by record and cause", .timeLimit(.minutes(5)))
struct FailureGroupingTests {
    static let processorNames = RoomScan.processors.map(\.name)

    /// A generated corpus with broken payloads, run once; returns the keys of the broken records.
    func brokenCorpus(_ harness: CommandHarness) async throws -> [String] {
        _ = try await harness.rederive("generate", "--count", "60", "--seed", "5", "--corrupt", "0.1")
        let run = try await harness.rederive("run", "--progress", "none")
        #expect(run.status == 3)
        let keys = try await harness.connection().read { db in
            try String.fetchAll(db, sql: """
                SELECT DISTINCT s.scan_id FROM rederive_failures f JOIN room_scans s ON s.id = f.record_id
                WHERE f.current = 1 ORDER BY s.id
                """)
        }
        #expect(keys.count >= 3)
        return keys
    }

    /// Lines of a table after its header.
    func rows(_ output: String) -> [Substring] {
        Array(output.split(separator: "\n").dropFirst())
    }

    @Test func theTableShowsABrokenPayloadOnceWithEveryProcessorListed() async throws {
        try await CommandHarness.withHarness { harness in
            let broken = try await brokenCorpus(harness)
            let table = try await harness.rederive("failures")
            #expect(table.status == 0)
            let header = try #require(table.output.split(separator: "\n").first)
            #expect(header.split(separator: " ", omittingEmptySubsequences: true) == ["record", "key", "kind", "run", "processors", "message"])
            let lines = rows(table.output)
            #expect(lines.count == broken.count)
            for (line, key) in zip(lines, broken) {
                #expect(line.contains(key))
                #expect(line.contains(Self.processorNames.joined(separator: ", ")), "\(line)")
            }
        }
    }

    @Test func theTableLimitCountsLines() async throws {
        try await CommandHarness.withHarness { harness in
            let broken = try await brokenCorpus(harness)
            let table = try await harness.rederive("failures", "--limit", "2")
            #expect(rows(table.output) == rows(table.output).prefix(2) + ["… and \(broken.count - 2) more"])
            #expect(rows(table.output).count == 3)
        }
    }

    @Test func jsonKeepsOneEntryPerRecordAndProcessorUnlessGroupedByRecord() async throws {
        try await CommandHarness.withHarness { harness in
            let broken = try await brokenCorpus(harness)
            let flat = try await harness.rederive("failures", "--format", "json")
            let entries = try #require(try JSONSerialization.jsonObject(with: Data(flat.output.utf8)) as? [[String: Any]])
            #expect(entries.count == broken.count * Self.processorNames.count)
            #expect(entries.allSatisfy { $0["processor"] is String && $0["version"] as? Int == 1 })

            let grouped = try await harness.rederive("failures", "--format", "json", "--group", "record")
            let groups = try #require(try JSONSerialization.jsonObject(with: Data(grouped.output.utf8)) as? [[String: Any]])
            #expect(groups.compactMap { $0["key"] as? String } == broken)
            for group in groups {
                let processors = try #require(group["processors"] as? [[String: Any]])
                #expect(processors.compactMap { $0["name"] as? String } == Self.processorNames)
                #expect(processors.allSatisfy { $0["version"] as? Int == 1 })
                for field in ["recordId", "kind", "message", "runId", "at"] {
                    #expect(group[field] != nil, "a group lacks \(field)")
                }
                #expect(group["processor"] == nil)
            }
        }
    }

    @Test func csvKeepsOneRowPerRecordAndProcessorUnlessGroupedByRecord() async throws {
        try await CommandHarness.withHarness { harness in
            let broken = try await brokenCorpus(harness)
            let flat = try await harness.rederive("failures", "--format", "csv")
            let flatLines = flat.output.split(separator: "\n")
            #expect(flatLines.first == "recordId,key,processor,version,kind,message,runId,at")
            #expect(flatLines.count == 1 + broken.count * Self.processorNames.count)

            let grouped = try await harness.rederive("failures", "--format", "csv", "--group", "record")
            let lines = grouped.output.split(separator: "\n")
            #expect(lines.first == "recordId,key,processors,versions,kind,message,runId,at")
            #expect(lines.count == 1 + broken.count)
            for line in lines.dropFirst() {
                let versions = Self.processorNames.map { _ in "1" }.joined(separator: ";")
                #expect(line.contains(",\(Self.processorNames.joined(separator: ";")),\(versions),"), "\(line)")
            }
        }
    }

    @Test func theTableCanStillListOneLinePerProcessor() async throws {
        try await CommandHarness.withHarness { harness in
            let broken = try await brokenCorpus(harness)
            let table = try await harness.rederive("failures", "--group", "processor")
            #expect(rows(table.output).count == broken.count * Self.processorNames.count)
        }
    }

    // MARK: A processor that fails alone

    struct Item: Decodable, Sendable {
        let label: String
        let values: [Int]
    }

    struct Picky: Error, CustomStringConvertible {
        var description: String { "picky refuses an empty list" }
    }

    static let items = Pipeline(
        name: "items", table: "items", keyColumn: "key", decoding: Item.self,
        processors: [
            Processor<Item>(name: "count", version: 1, columns: [.integer("value_count")]) { [.integer($0.values.count)] },
            Processor<Item>(name: "picky", version: 2, columns: [.integer("first_value")]) { item in
                guard let first = item.values.first else { throw Picky() }
                return [.integer(first)]
            },
        ]
    )

    @Test func aFailureOfOneProcessorStandsAloneBesideABrokenPayload() async throws {
        try await CommandHarness.withHarness { harness in
            let captured = CapturedConsole()
            let environment = CommandEnvironment(
                registry: try Registry([Self.items]), console: captured.console, variables: ["REDERIVE_DB": harness.databasePath]
            )
            #expect(await RederiveCommand.execute(["run", "--create", "--progress", "none"], in: environment) == 0)
            try await harness.connection().write { db in
                for (key, payload) in [("good", #"{"label":"a","values":[4,5]}"#), ("empty", #"{"label":"b","values":[]}"#), ("broken", #"{"label":"#)] {
                    try db.execute(sql: "INSERT INTO items (key, payload) VALUES (?, ?)", arguments: [key, payload])
                }
            }
            #expect(await RederiveCommand.execute(["run", "--progress", "none"], in: environment) == 3)

            let table = CapturedConsole()
            let listing = CommandEnvironment(registry: environment.registry, console: table.console, variables: environment.variables)
            #expect(await RederiveCommand.execute(["failures"], in: listing) == 0)
            let lines = rows(table.standardOutput)
            #expect(lines.count == 2, "\(table.standardOutput)")
            let empty = try #require(lines.first { $0.contains("empty") })
            #expect(empty.contains("processor") && empty.contains("picky refuses an empty list"))
            #expect(empty.contains("  picky  ") && !empty.contains("count"))
            let broken = try #require(lines.first { $0.contains("broken") })
            #expect(broken.contains("decoding") && broken.contains("count, picky"))
        }
    }
}
