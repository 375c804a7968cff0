import Foundation
import Logging

/// Writes log messages on the console's standard error as one JSON object per line, for a log
/// collector: `{"time":"2026-11-23T10:04:05.120Z","level":"info","message":"run started",
/// "label":"rederive.run","pipeline":"roomscan","run":"12","worker":"host:4242"}`.
///
/// The metadata's keys sit beside `time`, `level`, `message` and `label`; a metadata key that is one of
/// those four is written as `metadata.KEY` so that it cannot hide them.
struct JSONLogHandler: LogHandler {
    let console: Console
    let label: String
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// UTC, to the millisecond: `2026-11-23T10:04:05.120Z`.
    static let timeFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    static let reservedKeys: Set<String> = ["time", "level", "message", "label"]

    func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata {
            merged.merge(extra) { _, new in new }
        }
        var line = "{"
        line += "\"time\":" + Self.string(Date().formatted(Self.timeFormat))
        line += ",\"level\":" + Self.string(event.level.rawValue)
        line += ",\"message\":" + Self.string("\(event.message)")
        line += ",\"label\":" + Self.string(label)
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
            let name = Self.reservedKeys.contains(key) ? "metadata.\(key)" : key
            line += "," + Self.string(name) + ":" + Self.json(value)
        }
        line += "}"
        console.errorLine(line)
    }

    /// A metadata value as JSON: strings as strings, arrays and dictionaries as arrays and objects.
    static func json(_ value: Logger.MetadataValue) -> String {
        switch value {
        case .string(let text):
            return string(text)
        case .stringConvertible(let convertible):
            return string(convertible.description)
        case .array(let values):
            return "[" + values.map(json).joined(separator: ",") + "]"
        case .dictionary(let entries):
            return "{" + entries.sorted { $0.key < $1.key }.map { string($0.key) + ":" + json($0.value) }.joined(separator: ",") + "}"
        }
    }

    /// `text` as a JSON string: quotes, backslashes and control characters escaped.
    static func string(_ text: String) -> String {
        var escaped = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                escaped += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }
}
