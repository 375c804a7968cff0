import Foundation
import Rederive

/// Numbers as reports show them: integers in full with thousands separators, other values with four
/// significant digits, never in a locale's format, so that a report reads the same everywhere.
enum ReportNumber {
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "−∞" : "∞" }
        if value == value.rounded(), abs(value) < 1e15 {
            return count(Int(value))
        }
        let text = String(format: "%.4g", value)
        return text.hasPrefix("-") ? "−" + text.dropFirst() : text
    }

    /// A stored or derived value for a table: numbers to six significant digits, text shortened.
    static func value(_ value: DerivedValue, limit: Int = 80) -> String {
        switch value {
        case .real(let number):
            if number.isFinite, number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
            return number.isFinite ? String(format: "%.6g", number) : format(number)
        case .text(let text):
            return text.count > limit ? String(text.prefix(limit)) + "…" : text
        default:
            return value.description
        }
    }

    static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped += "," }
            grouped.append(digit)
        }
        return (value < 0 ? "−" : "") + grouped
    }

    /// A share as a percentage: `12.5 %`, `< 0.1 %` for small non-zero shares.
    static func percent(_ part: Int, of whole: Int) -> String {
        guard whole > 0 else { return "–" }
        let share = Double(part) / Double(whole) * 100
        if share > 0, share < 0.1 { return "< 0.1 %" }
        return String(format: "%.1f %%", share)
    }

    /// A relative change, signed: `+3.2 %`, `−40 %`, `new` when the old value was zero.
    static func relativeChange(from old: Double, to new: Double) -> String {
        guard old != 0 else { return new == 0 ? "0 %" : "from 0" }
        let change = (new - old) / abs(old) * 100
        let text = String(format: abs(change) >= 100 ? "%.0f %%" : "%.2g %%", abs(change))
        return (change < 0 ? "−" : "+") + text
    }
}
