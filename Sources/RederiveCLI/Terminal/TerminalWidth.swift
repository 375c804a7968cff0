import Foundation

/// A terminal's width in columns, read again each time it is asked for.
///
/// Each redraw asks (an `ioctl`, a few microseconds, at most ten times a second), rather than keep a
/// width that a SIGWINCH handler updates: a handler runs some time after the resize, and a line drawn
/// meanwhile for the old, wider terminal wraps and leaves a piece of itself behind on the screen.
struct TerminalWidth: Sendable {
    /// The width assumed when the console cannot say: the classic terminal's.
    static let fallback = 80

    /// The width now, nil when unknown.
    let read: @Sendable () -> Int?

    /// The width now: what `read` reports, else ``fallback``.
    var current: Int { read() ?? Self.fallback }

    /// The width of the terminal on `descriptor` (ioctl TIOCGWINSZ); nil when it is not a terminal or
    /// does not know its size.
    static func columns(of descriptor: Int32) -> Int? {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}
