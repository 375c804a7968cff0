import ArgumentParser
import Foundation
import Rederive
import RederiveCodec

/// `rederive verify`: re-derive in memory and list stored values that differ, writing nothing.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Re-derive records in memory and list stored values that differ from what the processors produce now.",
        discussion: """
            Writes nothing. Compares a processor's values of a record when rederive wrote them (any stamp) or \
            when they differ from the columns' defaults; records never derived are not compared. Stale records \
            are compared too (state "stale"); they differ until the next run. With --projections, checks a \
            sample of the stored projections (--sample, 1,000 by default) against a fresh decode of their \
            payloads instead. Exit status: 0 when everything matches, 4 when some value or projection \
            differs, 1 for a fatal error.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @OptionGroup var verbosity: VerbosityOptions

    @Flag(help: "Verify every record (the default).")
    var all = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Verify this many records chosen at random.", valueName: "N"))
    var sample: Int?

    @Option(help: OutputFormat.help)
    var format: OutputFormat = .table


    @Option(parsing: .unconditional, help: "Workers that inflate, decode and derive at once, up to 8 per core.")
    var parallel: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(parsing: .unconditional, help: ArgumentHelp("Fail payloads that inflate to more than this many MiB.", valueName: "MiB"))
    var maxPayloadSize: Int = PayloadCodec.defaultMaximumSize >> 20

    @Flag(help: "Check a sample of stored projections against a fresh decode of their payloads, rather than derived values.")
    var projections = false

    /// Projections `verify --projections` checks unless --sample says otherwise.
    static let projectionSample = 1_000

    func validate() throws {
        if all, sample != nil { throw ValidationError("choose either --all or --sample") }
        try ValueBounds.records.check(sample, "--sample")
        try ValueBounds.workers.check(parallel, "--parallel")
        try ValueBounds.payloadMiB.check(maxPayloadSize, "--max-payload-size")
    }

    func run() async throws {
        let console = verbosity.console(database.environment.console, keepingOutput: format != .table)
        let store = try await database.openForReading()
        if projections {
            return try await verifyProjections(store, console: console)
        }
        let verifier = Verifier(
            source: store,
            pipelines: try database.pipelines(),
            scope: sample.map(Verifier.Scope.sample) ?? .all,
            parallelism: parallel,
            maximumPayloadSize: maxPayloadSize << 20
        )
        let report = try await verifier.verify()
        switch format {
        case .json:
            try console.json([
                "records": report.records,
                "compared": report.compared,
                "notDerived": report.notDerived,
                "differences": report.differences.map { difference in
                    [
                        "pipeline": difference.pipeline, "recordId": difference.recordID, "key": difference.key ?? NSNull(),
                        "processor": difference.processor, "column": difference.column,
                        "stored": Self.json(difference.stored), "derived": difference.derived.map(Self.json) ?? NSNull(),
                        "failure": difference.failure ?? NSNull(), "upToDate": difference.upToDate,
                    ] as [String: Any]
                },
            ] as [String: Any])
        case .csv:
            console.csv(
                ["pipeline", "recordId", "key", "processor", "column", "stored", "derived", "failure", "state"],
                report.differences.map {
                    [
                        $0.pipeline, String($0.recordID), $0.key ?? "", $0.processor, $0.column, $0.stored.description,
                        $0.derived?.description ?? "", $0.failure ?? "", Self.state($0).name,
                    ]
                }
            )
        case .table:
            let shown = verbosity.verbose ? report.differences : Self.firstOfEachColumn(report.differences)
            if !shown.isEmpty {
                console.line(Format.table(
                    ["key", "processor", "column", "stored", "derived", "state"],
                    shown.map {
                        [
                            $0.key ?? "#\($0.recordID)", $0.processor, $0.column, $0.stored.description,
                            $0.derived?.description ?? "(\($0.failure ?? "failed"))", Self.state($0).name,
                        ]
                    }
                ))
            }
            if shown.count < report.differences.count {
                console.line(
                    "… and \(Format.count(report.differences.count - shown.count)) more; "
                        + "list every one with --verbose or --format json"
                )
            }
            let differing = Set(report.differences.map { "\($0.pipeline)/\($0.recordID)" }).count
            console.line(
                "verified \(Format.count(report.records, "record")): "
                    + (report.differences.isEmpty
                        ? "every stored value matches"
                        : "\(Format.count(report.differences.count, "value")) of \(Format.count(differing, "record")) \(report.differences.count == 1 ? "differs" : "differ")")
                    + (report.notDerived > 0 ? " (\(Format.count(report.notDerived, "processor value")) never derived, not compared)" : "")
            )
        }
        if !report.differences.isEmpty {
            throw ExitCode(ExitStatus.mismatch)
        }
    }

    /// Checks a sample of each pipeline's current projections against its payload decoded now, lists
    /// those that differ, and exits with status 4 when any does.
    private func verifyProjections(_ store: any CommandStore, console: Console) async throws {
        guard let projectionStore = store.projectionStore else {
            throw RederiveError(.invalidArgument, "\(database.databaseName) keeps no projections; verify --projections has nothing to check")
        }
        let codec = PayloadCodec(maximumSize: maxPayloadSize << 20)
        var checked = 0
        var mismatches: [(pipeline: String, recordID: Int64, key: String?, problem: String)] = []
        for pipeline in try database.pipelines() where pipeline.projectionVersion != nil {
            for sample in try await projectionStore.projectionSamples(pipeline, limit: sample ?? Self.projectionSample) {
                checked += 1
                let problem = sample.checksumMatches
                    ? pipeline.projectionMismatch(sample.projection, payload: sample.payload, codec: codec)
                    : "the stored projection does not match its checksum"
                if let problem {
                    mismatches.append((pipeline.name, sample.recordID, sample.key, problem))
                }
            }
        }
        switch format {
        case .json:
            try console.json([
                "checked": checked,
                "mismatches": mismatches.map {
                    ["pipeline": $0.pipeline, "recordId": $0.recordID, "key": $0.key ?? NSNull(), "problem": $0.problem] as [String: Any]
                },
            ] as [String: Any])
        case .csv:
            console.csv(["pipeline", "recordId", "key", "problem"], mismatches.map { [$0.pipeline, String($0.recordID), $0.key ?? "", $0.problem] })
        case .table:
            if !mismatches.isEmpty {
                console.line(Format.table(["key", "problem"], mismatches.map { [$0.key ?? "#\($0.recordID)", $0.problem] }))
            }
            console.line(
                "verified \(Format.count(checked, "projection")): "
                    + (mismatches.isEmpty
                        ? "every one matches its payload"
                        : mismatches.count == 1 ? "1 differs from its payload" : "\(Format.count(mismatches.count)) differ from their payloads")
            )
        }
        if !mismatches.isEmpty {
            throw ExitCode(ExitStatus.mismatch)
        }
    }

    /// Differences beyond this many of one processor's column are counted, not listed, in the table.
    static let examplesPerColumn = 5

    /// The first few differences of each processor's column, in the report's order: a change that
    /// touches every record reads as a few lines, and every column that differs is shown.
    static func firstOfEachColumn(_ differences: [Verifier.Difference]) -> [Verifier.Difference] {
        var shown: [String: Int] = [:]
        return differences.filter { difference in
            let column = "\(difference.pipeline)\u{0}\(difference.processor)\u{0}\(difference.column)"
            shown[column, default: 0] += 1
            return shown[column]! <= examplesPerColumn
        }
    }

    /// The record's state for the processor when it was verified: a stored value of a stale record
    /// differs until the next run.
    static func state(_ difference: Verifier.Difference) -> RecordState {
        difference.upToDate ? .upToDate : .stale
    }

    /// A value as JSON: numbers, strings and null as themselves, blobs as base64.
    static func json(_ value: DerivedValue) -> Any {
        switch value {
        case .null: NSNull()
        case .integer(let number): number
        case .real(let number): number.isFinite ? number as Any : String(number)
        case .text(let text): text
        case .blob(let bytes): Data(bytes).base64EncodedString()
        }
    }
}
