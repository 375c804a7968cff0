import ArgumentParser
import Foundation

/// How a listing is written. Every command with `--format` writes every one of these, and its help
/// lists them from this type.
enum OutputFormat: String, CaseIterable, ExpressibleByArgument {
    /// Aligned columns for people.
    case table
    /// One JSON document, for programs.
    case json
    /// A header line and one line per row, as RFC 4180 asks, for spreadsheets.
    case csv

    /// `--format`'s help; ArgumentParser appends the values, from the same cases the parser accepts.
    static var help: ArgumentHelp {
        ArgumentHelp("How to write the listing.", valueName: "format")
    }
}

extension Console {
    /// Writes a JSON value (arrays and dictionaries of JSON types) with sorted keys.
    func json(_ value: Any) throws {
        let data = try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        line(String(decoding: data, as: UTF8.self))
    }

    /// Writes a header line and one line per row, fields quoted as RFC 4180 asks.
    func csv(_ header: [String], _ rows: [[String]]) {
        for row in [header] + rows {
            line(row.map(Self.csvField).joined(separator: ","))
        }
    }

    /// A CSV field, quoted when it holds a comma, quote or line break.
    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// Timestamps in reports: ISO 8601 in UTC.
func isoTimestamp(_ date: Date) -> String {
    date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
}
