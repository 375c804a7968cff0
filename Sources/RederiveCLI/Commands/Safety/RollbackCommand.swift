import ArgumentParser
import Rederive

/// `rederive rollback RUN`: put back the values and stamps a run replaced.
struct RollbackCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rollback",
        abstract: "Restore the values and stamps that a run replaced.",
        discussion: """
            Records whose payload changed since the run, or that a later run changed again (roll that run back \
            first), are skipped and counted by reason, with a few examples (every one with --verbose). The 20 \
            newest runs that changed values keep what they replaced; runs that changed nothing use none of \
            that. A run whose replaced values are no longer kept, and a run in progress, are refused (exit 1). \
            Restored stamps keep their old versions, so a processor whose version moved on is stale again for \
            those records.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @OptionGroup var verbosity: VerbosityOptions

    @Argument(help: ArgumentHelp("The run to roll back (see `rederive history`).", valueName: "run"))
    var run: Int64


    func run() async throws {
        let console = verbosity.console(database.environment.console)
        let store = try await database.openForWriting()
        let report = try await store.rollback(run: run, pipelines: try database.pipelines())
        guard !report.restored.isEmpty || !report.skipped.isEmpty else {
            console.line("rolled back run \(run): it changed no values, so there was nothing to put back")
            return
        }
        console.line("rolled back run \(run): \(Format.count(report.restored.count)) restored, \(Format.count(report.skipped.count)) skipped")
        let skipped = RecordListSummary(
            items: report.skipped,
            reason: { "skipped, \($0.reason ?? "for no reason given")" },
            example: { "\($0.key ?? "#\($0.recordID)") \($0.processor)" },
            line: { "skipped \($0.key ?? "#\($0.recordID)") \($0.processor): \($0.reason ?? "")" }
        )
        for line in skipped.lines(verbose: verbosity.verbose, hint: "list every skipped record with --verbose") {
            console.line(line)
        }
    }
}
