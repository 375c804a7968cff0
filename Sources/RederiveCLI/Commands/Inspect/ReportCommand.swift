import ArgumentParser
import RederiveReport

/// `rederive report PATH.html`: the state of a database as a self-contained HTML page.
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write an HTML report of the database: processors, runs, failures, derived values.",
        discussion: """
            One self-contained file (charts as inline SVG, no script, no network access): per processor \
            the records up to date, stale and failed; records per second and failures of recent runs; \
            failures by kind and message with example records; the distribution of each derived numeric \
            column over a random sample of records. Every text from the database is escaped; \
            --redact-keys shows records by id instead of key.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @OptionGroup var verbosity: VerbosityOptions

    @Argument(help: ArgumentHelp("The HTML file to write.", valueName: "path.html"))
    var output: String

    @Option(parsing: .unconditional, help: ArgumentHelp("Records per pipeline sampled for the value distributions.", valueName: "N"))
    var sample = 2_000

    @Flag(help: "Show records by id instead of key.")
    var redactKeys = false

    func validate() throws {
        try ValueBounds.records.check(sample, "--sample")
    }

    func run() async throws {
        let store = try await database.openForReading()
        let state = try await DatabaseState.read(from: store, pipelines: try database.pipelines(), sampleSize: sample)
        try ReportFile.write(DatabaseStatePage.html(state, database: database.databaseName, redactKeys: redactKeys), to: output)
        verbosity.console(database.environment.console).line("wrote the report to \(output)")
    }
}
