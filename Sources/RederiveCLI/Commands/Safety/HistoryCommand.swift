import ArgumentParser
import Foundation
import Rederive

/// `rederive history`: recorded runs, newest first.
struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List recorded runs, newest first."
    )

    @OptionGroup var database: DatabaseOptions

    @OptionGroup var verbosity: VerbosityOptions

    @Option(help: OutputFormat.help)
    var format: OutputFormat = .table

    @Option(parsing: .unconditional, help: "Show at most this many runs.")
    var limit: Int = 20

    func validate() throws {
        try ValueBounds.records.check(limit, "--limit")
    }

    func run() async throws {
        let console = verbosity.console(database.environment.console, keepingOutput: format != .table)
        let store = try await database.openForReading()
        let runs = try await store.runs(limit: limit)
        let control = try await ControlReport.read(store)
        switch format {
        case .json:
            try console.json(runs.map { run in
                [
                    "id": run.id, "startedAt": isoTimestamp(run.startedAt),
                    "endedAt": run.endedAt.map(isoTimestamp) ?? NSNull(), "status": run.status.rawValue,
                    "state": control.status(of: run),
                    "processors": run.processors.map { ["pipeline": $0.pipeline, "name": $0.name, "version": $0.version] },
                    "derived": run.counts.changed, "unchanged": run.counts.unchanged,
                    "failed": run.counts.failed, "skipped": run.counts.skipped,
                ] as [String: Any]
            })
        case .csv:
            console.csv(
                ["id", "startedAt", "endedAt", "status", "derived", "unchanged", "failed", "skipped", "processors", "state"],
                runs.map { run in
                    [String(run.id), isoTimestamp(run.startedAt), run.endedAt.map(isoTimestamp) ?? "", run.status.rawValue,
                     String(run.counts.changed), String(run.counts.unchanged), String(run.counts.failed), String(run.counts.skipped),
                     run.processors.map { "\($0.name) v\($0.version)" }.joined(separator: ";"), control.status(of: run)]
                }
            )
        case .table:
            guard !runs.isEmpty else {
                console.line("no runs yet")
                return
            }
            console.line(Format.table(
                ["run", "started", "status", "derived", "unchanged", "failed", "processors"],
                runs.map { run in
                    [String(run.id), isoTimestamp(run.startedAt), control.status(of: run), Format.count(run.counts.changed),
                     Format.count(run.counts.unchanged), Format.count(run.counts.failed),
                     run.processors.map { "\($0.name) v\($0.version)" }.joined(separator: ", ")]
                },
                numeric: [0, 3, 4, 5]
            ))
        }
    }
}
