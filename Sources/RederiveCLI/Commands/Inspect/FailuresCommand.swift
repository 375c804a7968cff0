import ArgumentParser
import Foundation
import Rederive
import RederiveSQLite

/// `rederive failures`: the records that could not be derived.
struct FailuresCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "failures",
        abstract: "List current failures: records a processor could not derive at its current version and payload.",
        discussion: """
            A payload that does not inflate or decode fails every processor alike. The table shows one line \
            per record and cause, with the processors it failed; json and csv list one entry per record and \
            processor unless given --group record.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @OptionGroup var verbosity: VerbosityOptions

    @Option(help: OutputFormat.help)
    var format: OutputFormat = .table

    @Option(help: ArgumentHelp(
        "record: one entry per record and cause, listing its processors; processor: one per record and processor.",
        discussion: "Defaults to record for the table, processor for json and csv.",
        valueName: "record|processor"
    ))
    var group: FailureGrouping?

    @Option(help: ArgumentHelp("Only this processor's failures (repeatable).", valueName: "name"))
    var processor: [String] = []

    @Option(parsing: .unconditional, help: ArgumentHelp("Only failures recorded by this run.", valueName: "id"))
    var run: Int64?

    @Option(parsing: .unconditional, help: "Show at most this many entries (all by default, or the first 50 in a table without --verbose).")
    var limit: Int?


    func validate() throws {
        try ValueBounds.records.check(limit, "--limit")
    }

    /// Table entries shown without --limit or --verbose: a table of thousands of lines is not read.
    static let tableEntries = 50

    /// The entries to show at most: --limit, or the table's first entries unless --verbose.
    var shownLimit: Int? {
        limit ?? (format == .table && !verbosity.verbose ? Self.tableEntries : nil)
    }

    /// The grouping asked for, or the format's own.
    var grouping: FailureGrouping {
        group ?? (format == .table ? .record : .processor)
    }

    func run() async throws {
        let console = verbosity.console(database.environment.console, keepingOutput: format != .table)
        let store = try await database.openForReading()
        let pipelines = try database.pipelines()
        try pipelines.requireProcessors(named: processor)
        if let run, try await !store.runs(limit: nil).contains(where: { $0.id == run }) {
            throw RederiveError(.unknownName, "no run \(run) in \(database.databaseName); `\(database.suggestion(["history"]))` lists its runs")
        }
        let filter = FailureFilter(processors: processor.isEmpty ? nil : Set(processor), runID: run)
        var failures: [RecordFailure] = []
        for pipeline in pipelines {
            failures += try await store.failures(of: pipeline, filter: filter)
        }
        switch grouping {
        case .processor:
            let shown = shownLimit.map { Array(failures.prefix($0)) } ?? failures
            try write(shown, total: failures.count, to: console)
        case .record:
            let groups = FailureGroup.grouping(failures, pipelines: pipelines)
            let shown = shownLimit.map { Array(groups.prefix($0)) } ?? groups
            try write(shown, total: groups.count, to: console)
        }
    }

    /// One entry per record and processor.
    private func write(_ failures: [RecordFailure], total: Int, to console: Console) throws {
        switch format {
        case .json:
            try console.json(failures.map { failure in
                [
                    "recordId": failure.recordID, "key": failure.key ?? NSNull(), "processor": failure.processor,
                    "version": failure.version, "kind": failure.kind.rawValue, "message": failure.message,
                    "runId": failure.runID ?? NSNull(), "at": isoTimestamp(failure.at),
                ] as [String: Any]
            })
        case .csv:
            console.csv(
                ["recordId", "key", "processor", "version", "kind", "message", "runId", "at"],
                failures.map { failure in
                    [
                        String(failure.recordID), failure.key ?? "", failure.processor, String(failure.version),
                        failure.kind.rawValue, failure.message, failure.runID.map(String.init) ?? "", isoTimestamp(failure.at),
                    ]
                }
            )
        case .table:
            writeTable(
                ["record", "key", "processor", "version", "kind", "run", "message"],
                failures.map {
                    [String($0.recordID), Format.shortened($0.key ?? ""), $0.processor, String($0.version), $0.kind.rawValue,
                     $0.runID.map(String.init) ?? "", $0.message]
                },
                numeric: [0, 3, 5], total: total, to: console
            )
        }
    }

    /// One entry per record and cause.
    private func write(_ groups: [FailureGroup], total: Int, to console: Console) throws {
        switch format {
        case .json:
            try console.json(groups.map { group in
                [
                    "recordId": group.recordID, "key": group.key ?? NSNull(),
                    "processors": group.failures.map { ["name": $0.processor, "version": $0.version] as [String: Any] },
                    "kind": group.kind.rawValue, "message": group.message,
                    "runId": group.runID ?? NSNull(), "at": isoTimestamp(group.at),
                ] as [String: Any]
            })
        case .csv:
            console.csv(
                ["recordId", "key", "processors", "versions", "kind", "message", "runId", "at"],
                groups.map { group in
                    [
                        String(group.recordID), group.key ?? "", group.processors.joined(separator: ";"),
                        group.failures.map { String($0.version) }.joined(separator: ";"),
                        group.kind.rawValue, group.message, group.runID.map(String.init) ?? "", isoTimestamp(group.at),
                    ]
                }
            )
        case .table:
            writeTable(
                ["record", "key", "kind", "run", "processors", "message"],
                groups.map {
                    [String($0.recordID), Format.shortened($0.key ?? ""), $0.kind.rawValue, $0.runID.map(String.init) ?? "",
                     $0.processors.joined(separator: ", "), $0.message]
                },
                numeric: [0, 3], total: total, to: console
            )
        }
    }

    private func writeTable(_ header: [String], _ rows: [[String]], numeric: Set<Int>, total: Int, to console: Console) {
        guard !rows.isEmpty else {
            console.line("no failures")
            return
        }
        console.line(Format.table(header, rows, numeric: numeric))
        if rows.count < total {
            console.line(
                "… and \(Format.count(total - rows.count)) more"
                    + (limit == nil ? "; list every one with --verbose, or --format csv or json" : "")
            )
        }
    }
}
