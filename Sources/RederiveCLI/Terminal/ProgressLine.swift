import Foundation
import Rederive

/// The live bar's one line, laid out for a terminal's width.
///
/// A line as wide as the terminal wraps on some terminals, and a wrapped line cannot be redrawn in
/// place (each redraw would add a screen line), so the line is at most `width - 1` characters. When
/// it does not fit, the least important fields go first: the records overdue, the rate, the bar (which
/// first shrinks from 30 to 10 cells), the percentage, time left, and failures. The count of records done
/// stays, cut to the width in the narrowest terminals.
struct ProgressLine {
    var done: Int
    var total: Int
    var rate: Double
    var failed: Int
    var overdue: [InFlightRecord] = []

    /// The bar's cells when there is room.
    static let widestBar = 30
    /// Fewer cells than this say nothing: the bar goes instead.
    static let narrowestBar = 10

    /// A field of the line, in the order they are dropped when the line is too long: first to go first.
    enum Field: Int, CaseIterable, Comparable {
        case overdue, rate, bar, percent, timeLeft, failures, count

        static func < (left: Field, right: Field) -> Bool { left.rawValue < right.rawValue }
    }

    /// Share of the records done, from 0 to 1.
    var fraction: Double { total > 0 ? min(1, Double(done) / Double(total)) : 1 }

    /// The line for a terminal `width` columns wide: at most `width - 1` characters.
    func text(width: Int) -> String {
        let budget = max(0, width - 1)
        var fields = Set(Field.allCases)
        if overdue.isEmpty { fields.remove(.overdue) }
        while true {
            let fixed = render(fields, barWidth: 0).count
            if fields.contains(.bar) {
                let barWidth = min(Self.widestBar, budget - fixed)
                if barWidth >= Self.narrowestBar { return render(fields, barWidth: barWidth) }
            } else if fixed <= budget {
                return render(fields, barWidth: 0)
            }
            guard let least = fields.filter({ $0 != .count }).min() else {
                return String(render(fields, barWidth: 0).prefix(budget))
            }
            fields.remove(least)
        }
    }

    /// The fields kept, in display order; with `.bar`, the bar's cells and the space after them
    /// (`barWidth` cells, none when 0, to measure the rest).
    private func render(_ fields: Set<Field>, barWidth: Int) -> String {
        var text = ""
        if fields.contains(.bar), barWidth > 0 {
            let filled = Int((fraction * Double(barWidth)).rounded(.down))
            text += String(repeating: "█", count: filled) + String(repeating: "░", count: barWidth - filled) + " "
        } else if fields.contains(.bar) {
            text += " "
        }
        text += "\(Format.count(done))/\(Format.count(total))"
        if fields.contains(.percent) { text += String(format: " %3.0f%%", fraction * 100) }
        if fields.contains(.rate) { text += "  \(Format.rate(rate)) rec/s" }
        if fields.contains(.timeLeft) { text += "  ETA \(timeLeft)" }
        if fields.contains(.failures) { text += "  failures \(Format.count(failed))" }
        if fields.contains(.overdue) { text += "  overdue: \(Format.overdue(overdue))" }
        return text
    }

    /// `1:05`, `0:00` when done, `--:--` before the rate is known.
    var timeLeft: String {
        done >= total ? "0:00" : Format.clock(rate > 0 ? Double(total - done) / rate : .infinity)
    }
}
