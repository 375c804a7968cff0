import ArgumentParser
import Logging

/// `-q/--quiet` and `-v/--verbose`, on every command.
///
/// `--quiet` keeps only what says something went wrong: lines on standard error that start with
/// `rederive:` (errors and warnings). Progress, summaries and other chatter go; the exit status still
/// tells the outcome. Output asked for by name (`--format json` or `csv`, `run --progress json`) is
/// still written, and files a command writes (`export`, `report`, `backup`) are still written.
///
/// `--verbose` shows more: every entry of lists otherwise cut short, and on the commands that log
/// (`run`, `watch`) the engine's `info` log on standard error, as `--log-level info` does.
struct VerbosityOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: ArgumentHelp(
        "Print only errors and warnings (lines starting `rederive:`); the exit status tells the outcome.",
        discussion: "Output asked for by name (--format json or csv, --progress json) and files written are unaffected."
    ))
    var quiet = false

    @Flag(name: .shortAndLong, help: ArgumentHelp(
        "Show more: every entry of lists otherwise cut short and, for run and watch, the info log on standard error."
    ))
    var verbose = false

    func validate() throws {
        if quiet, verbose { throw Self.refusal("--quiet and --verbose contradict each other; give one of them") }
    }

    /// A contradiction between these flags (or `--log-level`), told in one line with the usage status,
    /// without the usage text ArgumentParser appends to a `ValidationError`: the flags' help says
    /// what each does.
    private static func refusal(_ message: String) -> ExitCode {
        CommandEnvironment.current.console.errorLine("rederive: \(message)")
        return ExitCode(ExitStatus.usage)
    }

    /// The console the command writes to: `console` itself, or under `--quiet` one that drops standard
    /// output (unless `keepingOutput`, for output asked for by name) and every standard-error line but
    /// those that start with `rederive:`.
    func console(_ console: Console, keepingOutput: Bool = false) -> Console {
        guard quiet else { return console }
        let write: @Sendable (String) -> Void = { text in
            if keepingOutput { console.write(text) }
        }
        let writeError: @Sendable (String) -> Void = { text in
            if text.hasPrefix("rederive:") { console.writeError(text) }
        }
        return Console(
            write: write,
            writeError: writeError,
            isTerminal: false,
            columns: console.columns
        )
    }

    /// The log level `--log-level` leaves unsaid: `info` under `--verbose`, else none.
    var impliedLogLevel: Logger.Level? { verbose ? .info : nil }

    /// Checks that `--log-level` agrees: `--quiet` takes only `error` or `critical`, `--verbose` only
    /// `info` or finer.
    func check(logLevel: Logger.Level?) throws {
        guard let logLevel else { return }
        if quiet, logLevel < .error {
            throw Self.refusal("--quiet prints only errors; it takes no --log-level \(logLevel.rawValue) (give one of them)")
        }
        if verbose, logLevel > .info {
            throw Self.refusal("--verbose logs at info; it takes no --log-level \(logLevel.rawValue) (give one of them)")
        }
    }
}
