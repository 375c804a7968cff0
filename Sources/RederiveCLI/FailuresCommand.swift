import ArgumentParser
import Foundation
import Rederive
import RederiveSQLite

/// `rederive failures`: the records that could not be derived.
struct FailuresCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "failures",
        abstract: "List current failures: records a processor could not derive at its current version and payload."
    )

    @OptionGroup var database: DatabaseOptions

    @Option(help: "table, json or csv.")
    var format: OutputFormat = .table

    @Option(help: ArgumentHelp("Only this processor's failures (repeatable).", valueName: "name"))
    var processor: [String] = []

    @Option(help: ArgumentHelp("Only failures recorded by this run.", valueName: "id"))
    var run: Int64?

    @Option(help: "Show at most this many failures (all by default).")
    var limit: Int?

    func run() async throws {
        let console = database.environment.console
        let store = try await database.openStore()
        let pipelines = try database.pipelines()
        try pipelines.requireProcessors(named: processor)
        let filter = FailureFilter(processors: processor.isEmpty ? nil : Set(processor), runID: run)
        var failures: [FailureReport] = []
        for pipeline in pipelines {
            failures += try await store.failures(of: pipeline, filter: filter)
        }
        let total = failures.count
        if let limit { failures = Array(failures.prefix(limit)) }
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
            console.line("recordId,key,processor,version,kind,message,runId,at")
            for failure in failures {
                let fields = [
                    String(failure.recordID), failure.key ?? "", failure.processor, String(failure.version),
                    failure.kind.rawValue, failure.message, failure.runID.map(String.init) ?? "", isoTimestamp(failure.at),
                ]
                console.line(fields.map(Self.csvField).joined(separator: ","))
            }
        case .table:
            guard !failures.isEmpty else {
                console.line("no failures")
                return
            }
            console.line(Format.table(
                ["record", "key", "processor", "version", "kind", "run", "message"],
                failures.map {
                    [String($0.recordID), $0.key ?? "", $0.processor, String($0.version), $0.kind.rawValue,
                     $0.runID.map(String.init) ?? "", $0.message]
                },
                numeric: [0, 3, 5]
            ))
            if failures.count < total {
                console.line("… and \(Format.count(total - failures.count)) more")
            }
        }
    }

    /// A CSV field, quoted when it holds a comma, quote or line break (RFC 4180).
    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
