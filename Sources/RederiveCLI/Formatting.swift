import Foundation
import Rederive

/// Number and duration formats for people.
enum Format {
    /// `12345` as `12,345`.
    static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var grouped = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return (value < 0 ? "-" : "") + grouped
    }

    static func rate(_ perSecond: Double) -> String {
        perSecond >= 100 ? count(Int(perSecond.rounded())) : String(format: "%.1f", perSecond)
    }

    static func seconds(_ seconds: Double) -> String {
        seconds < 60 ? String(format: "%.2f s", seconds) : clock(seconds)
    }

    /// `0.5 s`, `2 s`: a duration the user gave, as they would write it.
    static func setting(_ seconds: Double) -> String {
        String(format: "%g s", seconds)
    }

    /// `h:mm:ss` or `m:ss`.
    static func clock(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "--:--" }
        let total = Int(seconds.rounded())
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, secs) : String(format: "%d:%02d", minutes, secs)
    }

    /// Rows as left-aligned text columns and right-aligned number columns.
    static func table(_ header: [String], _ rows: [[String]], numeric: Set<Int> = []) -> String {
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        func render(_ row: [String]) -> String {
            row.indices.map { column in
                let cell = row[column]
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return numeric.contains(column) ? pad + cell : cell + pad
            }.joined(separator: "  ").replacing(/\s+$/, with: "")
        }
        return ([render(header)] + rows.map(render)).joined(separator: "\n")
    }

    /// `record 17 (12 s), record 40 (11 s)`: records derived for longer than the timeout.
    static func overdue(_ records: [InFlightRecord]) -> String {
        records.prefix(5).map { "record \($0.recordID) (\(String(format: "%.0f s", $0.elapsed.secondsValue)))" }.joined(separator: ", ")
            + (records.count > 5 ? " and \(records.count - 5) more" : "")
    }

    /// The line a run prints while it waits for another process's lease.
    static func waiting(for holder: LeaseHolder) -> String {
        "waiting for \(holder.worker), which is deriving this database; its lease expires in \(seconds(holder.expiresIn)) unless renewed"
    }
}
