import ArgumentParser
import Logging

/// `--log-level`: what the engine logs on standard error, with structured metadata (run, pipeline,
/// processor, record). Nothing is logged without it: progress and the summary say what a person needs.
struct LoggingOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Log on standard error at this level and above.",
        valueName: "level"
    ))
    var logLevel: Logger.Level?

    /// The logger commands hand to the engine.
    func logger(label: String, console: Console) -> Logger {
        guard let logLevel else {
            return Logger(label: label, factory: { _ in SwiftLogNoOpLogHandler() })
        }
        return Logger(label: label, factory: { _ in ConsoleLogHandler(console: console, logLevel: logLevel) })
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
