import ArgumentParser
import Logging

/// `--log-level`: what the engine logs on standard error, with structured metadata (run, pipeline,
/// processor, record). Without it, the engine logs nothing (progress and the summary say what a person
/// needs), and a database server only that it went out of reach and came back.
struct LoggingOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Log on standard error at this level and above.",
        discussion: "Without it, only a PostgreSQL server going out of reach and coming back is logged.",
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

    /// The logger a database server's store gets: at `--log-level`, else at `info`, where such a store
    /// says only that the server went out of reach (a warning) and that it is back.
    func serverLogger(label: String, console: Console) -> Logger {
        let level = logLevel ?? .info
        return Logger(label: label, factory: { _ in ConsoleLogHandler(console: console, logLevel: level) })
    }
}

/// A log level is given on the command line by its name: `--log-level debug`.
extension Logger.Level: @retroactive ExpressibleByArgument {}
