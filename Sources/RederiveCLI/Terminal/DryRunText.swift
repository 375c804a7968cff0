import Foundation
import Rederive

/// A dry run's report as text for people.
enum DryRunText {
    /// The report as lines; the failures a run would record are summarised by processor and kind
    /// unless `verbose`.
    static func render(_ report: DryRunReport, verbose: Bool = false) -> String {
        let failing = report.failingRecords
        var lines = [
            "dry run: derived \(Format.count(report.examined)) of \(Format.count(report.pending, "stale record"))"
                + (failing > 0 ? ", of which \(Format.count(failing)) would fail" : "") + "; nothing was written",
        ]
        lines.append(Format.table(
            ["column", "processor", "derived", "would change", "summary"],
            report.columns.map { column in
                [column.column, column.processor, Format.count(column.derived), Format.count(column.changed), summary(column)]
            },
            numeric: [2, 3]
        ))
        for cascade in report.cascades {
            lines.append("cascade: \(cascade.processor) would run again for \(Format.count(cascade.records, "record")) that \(cascade.records == 1 ? "is" : "are") not stale for it, because its inputs change")
        }
        if report.failures.isEmpty {
            lines.append("no failures would be recorded")
        } else {
            // One failure per record and processor, where the headline counts records.
            lines.append("\(Format.count(report.failures.count)) \(Format.noun(report.failures.count, "failure")) (one per record and processor) would be recorded:")
            let failures = RecordListSummary(
                items: report.failures,
                reason: { "\($0.processor) \($0.kind.rawValue) failures" },
                example: { $0.key ?? "#\($0.recordID)" },
                line: { "\($0.key ?? "#\($0.recordID)")  \($0.processor)  \($0.kind.rawValue): \($0.message)" }
            )
            lines += failures.lines(verbose: verbose, hint: "list every failure and its message with --verbose, or in --report PATH.html")
        }
        return lines.joined(separator: "\n")
    }

    static func summary(_ column: ColumnChanges) -> String {
        if let differences = column.differences {
            return "difference min \(number(differences.minimum)), median \(number(differences.median)), max \(number(differences.maximum))"
        }
        return column.commonChanges.map { change in
            "\(change.from.map(quoted) ?? "(none)") → \(quoted(change.to)) ×\(Format.count(change.count))"
        }.joined(separator: "; ")
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(format: "%.4g", value)
    }

    private static func quoted(_ value: DerivedValue) -> String {
        if case .text(let text) = value {
            return "\"\(text.count > 40 ? text.prefix(40) + "…" : text)\""
        }
        return value.description
    }
}
