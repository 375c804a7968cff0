import Foundation

/// A terminal's width in columns, read again each time it is asked for while the terminal may be
/// resized.
///
/// Each redraw asks (an `ioctl`, a few microseconds, at most ten times a second), rather than keep a
/// width that a SIGWINCH handler updates: a handler runs some time after the resize, and a line drawn
/// meanwhile for the old, wider terminal wraps and leaves a piece of itself behind on the screen.
final class TerminalWidth: Sendable {
    /// The width assumed when the console cannot say: the classic terminal's.
    static let fallback = 80

    private let read: @Sendable () -> Int?
    /// The width read once, when resizes are not followed.
    private let fixed: Int?

    /// The width that `read` reports (nil when unknown, then ``fallback``): read at each ``current``
    /// when `followResizes`, else once, now.
    init(read: @escaping @Sendable () -> Int?, followResizes: Bool) {
        self.read = read
        fixed = followResizes ? nil : read() ?? Self.fallback
    }

    /// The width now.
    var current: Int { fixed ?? read() ?? Self.fallback }

    /// The width of the terminal on `descriptor` (ioctl TIOCGWINSZ); nil when it is not a terminal or
    /// does not know its size.
    static func columns(of descriptor: Int32) -> Int? {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}
