import Foundation

/// The frame every report shares: one self-contained HTML document with its style sheet inline, a
/// content security policy that forbids scripts and every request, and the small building blocks
/// (panels, tables, key-value lists) the reports are made of.
enum ReportPage {
    /// The whole document: `title` is escaped, `body` is markup the caller built from escaped text.
    static func document(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
        <meta name="generator" content="rederive">
        <title>\(HTML.escape(title))</title>
        <style>\(ReportStyle.css)</style>
        </head>
        <body>
        \(body)
        </body>
        </html>

        """
    }

    /// A definition list of facts for the report's header; values are escaped here.
    static func facts(_ items: [(String, String)]) -> String {
        "<dl class=\"facts\">" + items.map { "<div><dt>\(HTML.escape($0.0))</dt><dd>\(HTML.escape($0.1))</dd></div>" }.joined() + "</dl>"
    }

    /// A table; header cells and cells are escaped here. `numeric` columns align right.
    /// `unbroken` columns never wrap (times, identifiers).
    static func table(_ headers: [String], _ rows: [[String]], numeric: Set<Int> = [], unbroken: Set<Int> = [], kind: String? = nil) -> String {
        var html = "<div class=\"table\"><table\(kind.map { " data-table=\"\(HTML.escape($0))\"" } ?? "")><thead><tr>"
        for (index, header) in headers.enumerated() {
            html += "<th\(numeric.contains(index) ? " class=\"num\"" : "")>\(HTML.escape(header))</th>"
        }
        html += "</tr></thead><tbody>"
        for row in rows {
            html += "<tr>"
            for (index, cell) in row.enumerated() {
                let cssClass = numeric.contains(index) ? " class=\"num\"" : unbroken.contains(index) ? " class=\"nowrap\"" : ""
                html += "<td\(cssClass)>\(HTML.escape(cell))</td>"
            }
            html += "</tr>"
        }
        return html + "</tbody></table></div>"
    }

    /// A chart in a panel with an escaped caption under it.
    static func figure(_ chart: String, caption: String, legend: [(cssClass: String, name: String)] = []) -> String {
        var html = "<figure>\(chart)<figcaption>"
        if !legend.isEmpty {
            html += "<span class=\"legend\">" + legend.map { "<span><i class=\"swatch \($0.cssClass)\"></i>\(HTML.escape($0.name))</span>" }.joined() + "</span>"
        }
        return html + "\(HTML.escape(caption))</figcaption></figure>"
    }

    /// A paragraph of escaped text.
    static func note(_ text: String) -> String {
        "<p class=\"note\">\(HTML.escape(text))</p>"
    }

    /// A record as a report shows it: its key, or its id when keys are hidden or it has none.
    static func record(key: String?, id: Int64, redactKeys: Bool) -> String {
        if redactKeys || key == nil { return "record #\(id)" }
        return key ?? ""
    }

    /// A stored or derived value, shortened for a table cell.
    static func value(_ text: String, limit: Int = 80) -> String {
        text.count > limit ? String(text.prefix(limit)) + "…" : text
    }

    /// The moment a report was made, in UTC, to the second.
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
