import ArgumentParser
import Rederive
import RederiveReport

/// `run --dry-run --report PATH.html`: the dry run as a self-contained HTML page, to look at or to
/// attach to the pull request that bumps a version.
struct DryRunReportOptions: ParsableArguments {
    @Option(name: .customLong("report"), help: ArgumentHelp(
        "With --dry-run, also write an HTML report with charts of what would change.",
        valueName: "path.html"
    ))
    var path: String?

    @Flag(help: "In the HTML report, show records by id instead of key.")
    var redactKeys = false

    /// Checks the options against the run's: a report is of a dry run.
    func validate(dryRun: Bool) throws {
        if path != nil, !dryRun { throw ValidationError("--report needs --dry-run") }
        if redactKeys, path == nil { throw ValidationError("--redact-keys needs --report") }
    }

    /// Runs `dryRun`, writing the report when one was asked for, with the run history of `history`,
    /// and returns its summary.
    func run(_ dryRun: DryRun, history: any StoreReporting, database: String, console: Console) async throws -> DryRunReport {
        guard let path else { return try await dryRun.run() }
        let page = try await DryRunPage.make(dryRun, history: history, database: database, redactKeys: redactKeys)
        try ReportFile.write(page.html, to: path)
        console.errorLine("wrote the report to \(path)")
        return page.report
    }
}
