import Foundation
import Synchronization

/// Where commands write: standard output for results, standard error for progress and diagnostics.
///
/// Commands never call `print` directly, so that tests and host apps can capture what they say.
public struct Console: Sendable {
    /// Writes to standard output: results.
    public let write: @Sendable (String) -> Void
    /// Writes to standard error: progress and diagnostics.
    public let writeError: @Sendable (String) -> Void
    /// Whether standard error is a terminal, where a live progress bar makes sense.
    public let isTerminal: Bool
    /// The terminal's width in columns, read at the moment it is called; nil when not known. The
    /// progress bar reads it when it starts and whenever the terminal is resized.
    public let columns: @Sendable () -> Int?

    /// A console that writes with `write` and `writeError`; `columns` tells the terminal's width.
    public init(
        write: @escaping @Sendable (String) -> Void, writeError: @escaping @Sendable (String) -> Void, isTerminal: Bool,
        columns: @escaping @Sendable () -> Int? = { nil }
    ) {
        self.write = write
        self.writeError = writeError
        self.isTerminal = isTerminal
        self.columns = columns
    }

    /// The process's standard output and standard error. A reader that closes its end of a pipe
    /// (`| head -1`) ends the process quietly, by SIGPIPE, as it ends other command-line tools.
    public static var standard: Console {
        Console(
            write: { text in StandardStream.output.write(text) },
            writeError: { text in StandardStream.error.write(text) },
            isTerminal: isatty(STDERR_FILENO) == 1,
            columns: { TerminalWidth.columns(of: STDERR_FILENO) ?? TerminalWidth.columns(of: STDOUT_FILENO) }
        )
    }

    func line(_ text: String = "") { write(text + "\n") }
    func errorLine(_ text: String) { writeError(text + "\n") }
}

/// A console that keeps what is written, for tests.
public final class CapturedConsole: Sendable {
    private let output = Mutex<(out: String, err: String)>(("", ""))
    private let columns: Int?

    /// A console that keeps what is written; `columns` is the terminal width it reports, if any.
    public init(columns: Int? = nil) {
        self.columns = columns
    }

    /// A console whose output is kept here.
    public var console: Console {
        let columns = self.columns
        return Console(
            write: { text in self.output.withLock { $0.out += text } },
            writeError: { text in self.output.withLock { $0.err += text } },
            isTerminal: false,
            columns: { columns }
        )
    }

    /// Everything written to standard output so far.
    public var standardOutput: String { output.withLock { $0.out } }
    /// Everything written to standard error so far.
    public var standardError: String { output.withLock { $0.err } }
}
