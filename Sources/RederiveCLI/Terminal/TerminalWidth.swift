@preconcurrency import Dispatch
import Foundation
import Synchronization

/// A terminal's width in columns, read when it is created and again on every SIGWINCH, when the
/// terminal is resized.
final class TerminalWidth: Sendable {
    /// The width assumed when the console cannot say: the classic terminal's.
    static let fallback = 80

    /// The width last read, shared with the signal handler.
    private final class Columns: Sendable {
        let value: Atomic<Int>
        init(_ value: Int) { self.value = Atomic(value) }
    }

    private let columns: Columns
    private let source: (any DispatchSourceSignal)?

    /// Watches the width that `read` reports (nil when unknown, then ``fallback``); `watchResizes`
    /// re-reads it on SIGWINCH.
    init(read: @escaping @Sendable () -> Int?, watchResizes: Bool) {
        let columns = Columns(read() ?? Self.fallback)
        self.columns = columns
        guard watchResizes else {
            source = nil
            return
        }
        let source = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        source.setEventHandler {
            columns.value.store(read() ?? Self.fallback, ordering: .relaxed)
        }
        source.resume()
        self.source = source
    }

    deinit { source?.cancel() }

    /// The width now.
    var current: Int { columns.value.load(ordering: .relaxed) }

    /// Stops watching for resizes.
    func stop() { source?.cancel() }

    /// The width of the terminal on `descriptor` (ioctl TIOCGWINSZ); nil when it is not a terminal or
    /// does not know its size.
    static func columns(of descriptor: Int32) -> Int? {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}
