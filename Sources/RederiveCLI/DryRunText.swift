import Foundation
import Rederive

/// A dry run's report as text for people.
enum DryRunText {
    static func render(_ report: DryRunReport) -> String {
        var lines = ["dry run: derived \(Format.count(report.examined)) of \(Format.count(report.pending)) stale records; nothing was written"]
        lines.append(Format.table(
            ["column", "processor", "derived", "would change", "summary"],
            report.columns.map { column in
                [column.column, column.processor, Format.count(column.derived), Format.count(column.changed), summary(column)]
            },
            numeric: [2, 3]
        ))
        for cascade in report.cascades {
            lines.append("cascade: \(cascade.processor) would run again for \(Format.count(cascade.records)) records that are not stale for it, because its inputs change")
        }
        if report.failures.isEmpty {
            lines.append("no failures would be recorded")
        } else {
            lines.append("\(Format.count(report.failures.count)) failures would be recorded:")
            for failure in report.failures {
                lines.append("  \(failure.key ?? "#\(failure.recordID)")  \(failure.processor)  \(failure.kind.rawValue): \(failure.message)")
            }
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
