import Foundation
import Synchronization

/// Where commands write: standard output for results, standard error for progress and diagnostics.
///
/// Commands never call `print` directly, so that tests and host apps can capture what they say.
public struct Console: Sendable {
    public let write: @Sendable (String) -> Void
    public let writeError: @Sendable (String) -> Void
    /// Whether standard error is a terminal, where a live progress bar makes sense.
    public let isTerminal: Bool

    public init(write: @escaping @Sendable (String) -> Void, writeError: @escaping @Sendable (String) -> Void, isTerminal: Bool) {
        self.write = write
        self.writeError = writeError
        self.isTerminal = isTerminal
    }

    /// The process's standard output and standard error.
    public static var standard: Console {
        Console(
            write: { text in FileHandle.standardOutput.write(Data(text.utf8)) },
            writeError: { text in FileHandle.standardError.write(Data(text.utf8)) },
            isTerminal: isatty(STDERR_FILENO) == 1
        )
    }

    func line(_ text: String = "") { write(text + "\n") }
    func errorLine(_ text: String) { writeError(text + "\n") }
}

/// A console that keeps what is written, for tests.
public final class CapturedConsole: Sendable {
    private let output = Mutex<(out: String, err: String)>(("", ""))

    public init() {}

    public var console: Console {
        Console(
            write: { text in self.output.withLock { $0.out += text } },
            writeError: { text in self.output.withLock { $0.err += text } },
            isTerminal: false
        )
    }

    public var standardOutput: String { output.withLock { $0.out } }
    public var standardError: String { output.withLock { $0.err } }
}
