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

    /// `1 record`, `1,204 records`: a count with its noun, singular or plural as the count asks.
    static func count(_ value: Int, _ singular: String, plural: String? = nil) -> String {
        "\(count(value)) \(noun(value, singular, plural: plural))"
    }

    /// `record` for one, `records` for any other count.
    static func noun(_ value: Int, _ singular: String, plural: String? = nil) -> String {
        value == 1 ? singular : plural ?? singular + "s"
    }

    /// `812 KB`, `57.3 GB`: a size in decimal units, as disks are sold and `df -H` prints them.
    static func bytes(_ value: Int) -> String {
        let units = ["bytes", "KB", "MB", "GB", "TB", "PB"]
        var size = Double(max(0, value))
        var unit = 0
        while size >= 1000, unit < units.count - 1 {
            size /= 1000
            unit += 1
        }
        return unit == 0 ? "\(Int(size)) bytes" : String(format: size < 10 ? "%.1f %@" : "%.0f %@", size, units[unit])
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

    /// `about 27 s`, `about 1:05`: an estimate, to the whole second, since its hundredths are noise.
    static func estimate(_ seconds: Double) -> String {
        seconds < 60 ? "\(Int(max(0, seconds).rounded())) s" : clock(seconds)
    }

    /// `h:mm:ss` or `m:ss`.
    static func clock(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "--:--" }
        let total = Int(seconds.rounded())
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, secs) : String(format: "%d:%02d", minutes, secs)
    }

    /// Rows as left-aligned text columns and right-aligned number columns. A cell's line breaks, tabs
    /// and other control characters are written as escapes (`\n`, `\t`, `\u{1B}`), so that every row
    /// stays on one line and in its columns.
    static func table(_ header: [String], _ rows: [[String]], numeric: Set<Int> = []) -> String {
        let header = header.map(tableCell)
        let rows = rows.map { $0.map(tableCell) }
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

    /// A table cell's text on one line: control characters as escapes, a backslash doubled only
    /// when the cell holds an escape, so that ordinary paths read as they are.
    static func tableCell(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var cell = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": cell += "\\n"
            case "\r": cell += "\\r"
            case "\t": cell += "\\t"
            case "\\": cell += "\\\\"
            case _ where isControl(scalar): cell += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: cell.unicodeScalars.append(scalar)
            }
        }
        return cell
    }

    /// C0 and C1 control characters, and the line and paragraph separators, which move the cursor.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}"
    }

    /// `record 17 (12 s), record 40 (11 s)`: records derived for longer than the timeout.
    static func overdue(_ records: [InFlightRecord]) -> String {
        records.prefix(5).map { "record \($0.recordID) (\(String(format: "%.0f s", $0.elapsed.secondsValue)))" }.joined(separator: ", ")
            + (records.count > 5 ? " and \(records.count - 5) more" : "")
    }

    /// The line a run prints while it waits for another process's lease.
    /// What a run waiting for another process's lease says: who holds it, that it holds it while it
    /// runs, and how to bound the wait.
    static func waiting(for holder: LeaseHolder) -> String {
        let who = holder.command.map { "`\(tableCell(String($0.prefix(120))))` (\(holder.worker))" } ?? holder.worker
        return "waiting for \(who), which holds this database's lease and renews it while it runs "
            + "(if it stopped now, the lease would expire in \(seconds(holder.expiresIn))); bound the wait with --wait SECONDS, or end at once with --no-wait"
    }

    /// What a run says when its claims stop or go on again: `paused: claims wait for rederive resume`.
    static func held(_ hold: ClaimHold?) -> String {
        switch hold {
        case .paused?: "paused: what was claimed is committed; claims wait for `rederive resume` (Ctrl-C ends the run as interrupted)"
        case .throttled(let reason)?: "throttled by \(reason): what was claimed is committed; claims go on when it clears"
        case nil: "claims go on"
        }
    }
}
