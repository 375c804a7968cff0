import ArgumentParser
import Logging

/// `--log-level`: what the engine logs on standard error, with structured metadata (run, worker,
/// pipeline, processor, record). Without it, the engine logs nothing (progress and the summary say what
/// a person needs), and a database server only that it went out of reach and came back.
/// `--log-format json` writes each message as one JSON object per line, for a log collector.
/// `--verbose` logs at `info` when no level is given; `--quiet` only errors.
struct LoggingOptions: ParsableArguments {
    @OptionGroup var verbosity: VerbosityOptions

    @Option(help: ArgumentHelp(
        "Log on standard error at this level and above.",
        discussion: "Without it, only a PostgreSQL server going out of reach and coming back is logged.",
        valueName: "level"
    ))
    var logLevel: Logger.Level?

    @Option(help: ArgumentHelp(
        "How each log message is written: text (one line of words) or json (one JSON object per line).",
        valueName: "format"
    ))
    var logFormat: LogFormat = .text

    func validate() throws {
        try verbosity.check(logLevel: logLevel)
    }

    /// The logger commands hand to the engine, at `--log-level`, else at `info` under `--verbose`.
    /// `console` is the command's own, not the one `--quiet` filters.
    func logger(label: String, console: Console) -> Logger {
        guard let logLevel = logLevel ?? verbosity.impliedLogLevel else {
            return Logger(label: label, factory: { _ in SwiftLogNoOpLogHandler() })
        }
        return makeLogger(label: label, console: console, level: logLevel)
    }

    /// The logger a database server's store gets: at `--log-level`, else at `info`, where such a store
    /// says only that the server went out of reach (a warning) and that it is back; under `--quiet`,
    /// at `error`.
    func serverLogger(label: String, console: Console) -> Logger {
        makeLogger(label: label, console: console, level: logLevel ?? (verbosity.quiet ? .error : .info))
    }

    private func makeLogger(label: String, console: Console, level: Logger.Level) -> Logger {
        switch logFormat {
        case .text:
            return Logger(label: label, factory: { _ in ConsoleLogHandler(console: console, logLevel: level) })
        case .json:
            return Logger(label: label, factory: { label in JSONLogHandler(console: console, label: label, logLevel: level) })
        }
    }
}

/// How log messages are written on standard error.
enum LogFormat: String, CaseIterable, ExpressibleByArgument {
    /// One line of words: `2026-11-23T10:04:05Z info run started pipeline=roomscan run=12`.
    case text
    /// One JSON object per line, with `time`, `level`, `message`, `label` and the metadata.
    case json
}

/// A log level is given on the command line by its name: `--log-level debug`.
extension Logger.Level: @retroactive ExpressibleByArgument {}
