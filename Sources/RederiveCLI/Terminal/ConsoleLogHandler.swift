import Foundation
import Logging

/// Writes log messages as single lines on the console's standard error, beside progress and errors:
/// `2026-11-23T10:04:05Z info run started pipeline=roomscan run=12`.
struct ConsoleLogHandler: LogHandler {
    let console: Console
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata {
            merged.merge(extra) { _, new in new }
        }
        let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.field($0.value))" }
        let time = Date().formatted(.iso8601)
        console.errorLine(([time, event.level.rawValue, "\(event.message)"] + fields).joined(separator: " "))
    }

    /// A value as one token: quoted when it holds spaces, quotes or line breaks.
    static func field(_ value: Logger.MetadataValue) -> String {
        let text = "\(value)"
        guard text.contains(where: { $0 == " " || $0 == "\"" || $0.isNewline }) || text.isEmpty else { return text }
        let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
        return "\"\(escaped)\""
    }
}
