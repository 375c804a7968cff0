import Foundation

/// Times are stored as ISO 8601 text in UTC with milliseconds, readable in `sqlite3` and sortable as text.
enum Timestamp {
    private static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    static func text(_ date: Date) -> String {
        date.formatted(style)
    }

    static func date(_ text: String) -> Date? {
        try? style.parse(text)
    }
}
