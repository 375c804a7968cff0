import Foundation
import Rederive

/// The HTML report of a dry run: what a logic change would do to every column, before it runs.
///
/// ```swift
/// let page = try await DryRunPage.make(DryRun(store: store, pipelines: [pipeline]), history: store, database: "rooms.sqlite")
/// try page.html.write(toFile: "dry-run.html", atomically: true, encoding: .utf8)
/// ```
public struct DryRunPage: Sendable {
    /// The dry run's own summary, as `run --dry-run` prints it.
    public let report: DryRunReport
    /// Sampled values and the records that change most.
    public let samples: DryRunSamples
    /// The document.
    public let html: String

    /// Runs `dryRun` and renders what it found.
    ///
    /// - Parameters:
    ///   - dryRun: The dry run to make and report on.
    ///   - history: The store's recorded runs, whose processor versions the page compares with the
    ///     dry run's: usually the dry run's own store.
    ///   - database: How the report names the database (a path, or a description without secrets).
    ///   - redactKeys: Show records by id instead of key.
    ///   - sampleSize: How many values per column the charts are drawn from.
    ///   - now: The time the report gives.
    public static func make(
        _ dryRun: DryRun, history: any StoreReporting, database: String, redactKeys: Bool = false, sampleSize: Int = 10_000, now: Date = Date()
    ) async throws -> DryRunPage {
        // The versions the last runs used.
        let runs = try await history.runs(limit: 200)
        var samples = DryRunSamples(sampleSize: sampleSize)
        let clock = ContinuousClock()
        let start = clock.now
        let report = try await dryRun.run { samples.add($0) }
        samples.finish()
        return DryRunPage(
            report: report, samples: samples, pipelines: dryRun.pipelines, history: runs, database: database,
            sampleLimit: dryRun.sample, redactKeys: redactKeys, now: now, elapsed: clock.now - start
        )
    }

    /// Renders a dry run's findings.
    public init(
        report: DryRunReport, samples: DryRunSamples, pipelines: [Pipeline], history: [RunHistoryEntry],
        database: String, sampleLimit: Int?, redactKeys: Bool, now: Date, elapsed: Duration
    ) {
        self.report = report
        self.samples = samples
        html = Renderer(
            report: report, samples: samples, pipelines: pipelines, history: history, database: database,
            sampleLimit: sampleLimit, redactKeys: redactKeys, now: now, elapsed: elapsed
        ).document()
    }

    /// The most bins a histogram has.
    static let binCount = 30

    private struct Renderer {
        let report: DryRunReport
        let samples: DryRunSamples
        let pipelines: [Pipeline]
        let history: [RunHistoryEntry]
        let database: String
        let sampleLimit: Int?
        let redactKeys: Bool
        let now: Date
        let elapsed: Duration

        func document() -> String {
            let changed = report.columns.filter { $0.changed > 0 }
            var body = "<header><h1>Dry run: what a run would change</h1>"
            body += "<p class=\"subtitle\">Derived in memory and compared with the stored values; nothing was written.</p>"
            body += ReportPage.facts(facts()) + "</header>"
            body += "<h2>Processors</h2>" + processors()
            let numeric = changed.filter { $0.type == .integer || $0.type == .real }
            let other = changed.filter { $0.type != .integer && $0.type != .real }
            if !numeric.isEmpty {
                body += "<h2>Numeric columns that would change</h2>"
                body += ReportPage.note(samplingNote())
                body += numeric.map(numericSection).joined()
            }
            if !other.isEmpty {
                body += "<h2>Text columns that would change</h2>" + other.map(textSection).joined()
            }
            body += "<h2>Every column</h2>" + columnTable()
            body += "<h2>Records that change most</h2>" + topRecords()
            body += "<h2>Failures a run would record</h2>" + FailureGroups(report.failures.map {
                FailureGroups.Entry(kind: $0.kind, message: $0.message, processor: $0.processor, key: $0.key, recordID: $0.recordID)
            }).html(redactKeys: redactKeys)
            body += "<footer>rederive \(HTML.escape(RederiveVersion.current)) · \(HTML.escape(ReportPage.timestamp(now)))</footer>"
            return ReportPage.document(title: "rederive dry run · \(database)", body: body)
        }

        private func facts() -> [(String, String)] {
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            return [
                ("database", database),
                ("pipeline", pipelines.map(\.name).joined(separator: ", ")),
                ("records derived", "\(ReportNumber.count(report.examined)) of \(ReportNumber.count(report.pending)) stale"
                    + (sampleLimit.map { " (sample of \(ReportNumber.count($0)))" } ?? "")),
                ("records that would fail", ReportNumber.count(report.failingRecords)),
                ("values that would change", ReportNumber.count(report.columns.reduce(0) { $0 + $1.changed })),
                ("failures", ReportNumber.count(report.failures.count)),
                ("made", ReportPage.timestamp(now) + String(format: " in %.1f s", seconds)),
            ]
        }

        private func processors() -> String {
            var rows: [[String]] = []
            for pipeline in pipelines {
                for processor in pipeline.processors {
                    let previous = history.lazy.compactMap { run in
                        run.processors.first { $0.pipeline == pipeline.name && $0.name == processor.name }?.version
                    }.first
                    let version = previous.map { $0 == processor.version ? "v\($0) (unchanged)" : "v\($0) → v\(processor.version)" }
                        ?? "never run → v\(processor.version)"
                    let columns = report.columns.filter { $0.pipeline == pipeline.name && $0.processor == processor.name }
                    let cascade = report.cascades.first { $0.pipeline == pipeline.name && $0.processor == processor.name }
                    let sources = (processor.readsPayload ? ["payload"] : []) + processor.inputProcessors
                    rows.append([
                        pipeline.name, processor.name, version, sources.joined(separator: ", "),
                        processor.columns.map(\.name).joined(separator: ", "),
                        ReportNumber.count(columns.map(\.derived).max() ?? 0)
                            + (cascade.map { " (\(ReportNumber.count($0.records)) as inputs change)" } ?? ""),
                        ReportNumber.count(report.failures.filter { $0.pipeline == pipeline.name && $0.processor == processor.name }.count),
                    ])
                }
            }
            return ReportPage.table(
                ["pipeline", "processor", "version (last run → now)", "derives from", "columns", "derived", "failures"], rows, numeric: [5, 6]
            )
                + ReportPage.note(
                    "The last run's version comes from the database's run history; “derived” counts the records this dry run derived for the processor, "
                        + "and of those, the ones a processor derived again only because the values it reads would change."
                )
        }

        private func columnTable() -> String {
            ReportPage.table(
                ["column", "processor", "type", "derived", "would change", "share", "summary"],
                report.columns.map { column in
                    [column.column, column.processor, column.type.description, ReportNumber.count(column.derived),
                     ReportNumber.count(column.changed), ReportNumber.percent(column.changed, of: column.derived), summary(column)]
                },
                numeric: [3, 4, 5], kind: "columns"
            )
        }

        private func summary(_ column: ColumnChanges) -> String {
            if let differences = column.differences {
                return "difference min \(ReportNumber.format(differences.minimum)), median \(ReportNumber.format(differences.median)), max \(ReportNumber.format(differences.maximum))"
            }
            if column.changed > 0, column.type == .integer || column.type == .real {
                return "no earlier numbers to compare"
            }
            return ""
        }

        private func samplingNote() -> String {
            let sampled = samples.numeric.values.contains { !$0.values.isComplete || !$0.differences.isComplete }
            return sampled
                ? "Charts are drawn from a reproducible sample of at most \(ReportNumber.count(samples.sampleSize)) values per column; counts in the tables are exact."
                : "Charts show every derived value (at most \(ReportNumber.count(samples.sampleSize)) per column are sampled)."
        }

        private func numericSection(_ column: ColumnChanges) -> String {
            let identity = column.identity
            var html = "<section class=\"column\" data-column=\"\(HTML.escape(column.column))\"><h3><code>\(HTML.escape(column.column))</code> · \(HTML.escape(column.processor))</h3>"
            html += ReportPage.note("\(ReportNumber.count(column.changed)) of \(ReportNumber.count(column.derived)) values would change (\(ReportNumber.percent(column.changed, of: column.derived))). \(summary(column))")
            guard let sampled = samples.numeric[identity] else { return html + "</section>" }
            html += "<div class=\"grid\">"
            let pairs = sampled.values.elements
            let old = pairs.compactMap(\.old)
            let new = pairs.compactMap(\.new)
            let integral = column.type == .integer
            let values = ValueHistograms(old: old, new: new, integral: integral, binCount: DryRunPage.binCount)
            html += ReportPage.figure(
                SVGChart.histogram(
                    [SVGChart.Series(name: "stored", cssClass: "old", histogram: values.old),
                     SVGChart.Series(name: "new", cssClass: "new", histogram: values.new)],
                    scale: .linear, integral: integral, kind: "values", label: "\(column.column): stored and new values"
                ),
                caption: "Values of \(ReportNumber.count(sampled.values.elements.count)) records"
                    + (sampled.values.isComplete ? "" : " sampled of \(ReportNumber.count(sampled.values.seen))")
                    + nullNote(stored: pairs.count - old.count, new: pairs.count - new.count),
                legend: [("old", "stored now"), ("new", "after the run")]
            )
            let differences = sampled.differences.elements
            let chart = DifferenceHistogram(differences, integral: integral, binCount: DryRunPage.binCount)
            html += ReportPage.figure(
                SVGChart.histogram(
                    [SVGChart.Series(name: "changes", cssClass: "diff", histogram: chart.histogram)],
                    scale: chart.scale, integral: integral && !chart.scale.isLogarithmic, kind: "differences", label: "\(column.column): differences, new minus stored"
                ),
                caption: "Differences (new − stored) of \(ReportNumber.count(differences.count)) changed values"
                    + (sampled.differences.isComplete ? "" : " sampled of \(ReportNumber.count(sampled.differences.seen))")
                    + (chart.scale.isLogarithmic ? "; symmetric log scale: they span decades" : ""),
                legend: [("diff", "new − stored")]
            )
            return html + "</div></section>"
        }

        private func nullNote(stored: Int, new: Int) -> String {
            var parts: [String] = []
            if stored > 0 { parts.append("\(ReportNumber.count(stored)) without a stored number") }
            if new > 0 { parts.append("\(ReportNumber.count(new)) NULL after the run") }
            return parts.isEmpty ? "" : "; " + parts.joined(separator: ", ")
        }

        private func textSection(_ column: ColumnChanges) -> String {
            var html = "<section class=\"column\" data-column=\"\(HTML.escape(column.column))\"><h3><code>\(HTML.escape(column.column))</code> · \(HTML.escape(column.processor))</h3>"
            html += ReportPage.note("\(ReportNumber.count(column.changed)) of \(ReportNumber.count(column.derived)) values would change (\(ReportNumber.percent(column.changed, of: column.derived))); the most common changes:")
            let maximum = column.commonChanges.map(\.count).max() ?? 1
            html += "<div class=\"table\"><table data-chart=\"text-changes\"><thead><tr><th>stored</th><th>after the run</th><th class=\"num\">records</th><th></th></tr></thead><tbody>"
            for change in column.commonChanges {
                let width = Double(change.count) / Double(maximum) * 100
                html += "<tr><td>\(HTML.escape(change.from.map { ReportNumber.value($0) } ?? "(no stored row)"))</td>"
                html += "<td>\(HTML.escape(ReportNumber.value(change.to)))</td><td class=\"num\">\(ReportNumber.count(change.count))</td>"
                html += "<td style=\"width:30%\"><svg class=\"chart\" viewBox=\"0 0 100 8\" preserveAspectRatio=\"none\" aria-hidden=\"true\"><rect class=\"new\" x=\"0\" y=\"0\" height=\"8\" width=\"\(String(format: "%.1f", width))\"/></svg></td></tr>"
            }
            return html + "</tbody></table></div></section>"
        }

        private func topRecords() -> String {
            guard !samples.topRecords.isEmpty else {
                return ReportPage.note("No record's numbers would change.")
            }
            var html = ReportPage.note("The \(ReportNumber.count(samples.topRecords.count)) records with the largest relative change of a number (|new − stored| / |stored|), with every value of them that would change.")
            html += "<div class=\"table\"><table data-table=\"top-records\"><thead><tr><th>record</th><th>column</th><th class=\"num\">stored</th><th class=\"num\">after the run</th><th class=\"num\">change</th></tr></thead><tbody>"
            for record in samples.topRecords {
                for (index, change) in record.changes.enumerated() {
                    html += "<tr>"
                    if index == 0 {
                        html += "<td rowspan=\"\(record.changes.count)\">\(HTML.escape(ReportPage.record(key: record.key, id: record.recordID, redactKeys: redactKeys)))</td>"
                    }
                    let stored = change.old.map { ReportNumber.value($0, limit: 40) } ?? "(none)"
                    let relative = change.old?.number.flatMap { old in change.new.number.map { ReportNumber.relativeChange(from: old, to: $0) } } ?? ""
                    html += "<td>\(HTML.escape(change.column.column))</td><td class=\"num\">\(HTML.escape(stored))</td>"
                    html += "<td class=\"num\">\(HTML.escape(ReportNumber.value(change.new, limit: 40)))</td><td class=\"num\">\(HTML.escape(relative))</td></tr>"
                }
            }
            return html + "</tbody></table></div>"
        }
    }
}
