import ArgumentParser
import Foundation

/// How a listing is written.
enum OutputFormat: String, CaseIterable, ExpressibleByArgument {
    case table
    case json
    case csv
}

extension Console {
    /// Writes a JSON value (arrays and dictionaries of JSON types) with sorted keys.
    func json(_ value: Any) throws {
        let data = try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        line(String(decoding: data, as: UTF8.self))
    }
}

/// Timestamps in reports: ISO 8601 in UTC.
func isoTimestamp(_ date: Date) -> String {
    date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
}
