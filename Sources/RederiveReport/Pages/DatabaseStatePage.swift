import Foundation
import Rederive

/// The HTML report of a database's state: how current each processor's values are, how runs went,
/// what fails and why, and how the derived numbers are distributed.
public enum DatabaseStatePage {
    /// The document for `state`.
    ///
    /// - Parameters:
    ///   - state: What ``DatabaseState/read(from:pipelines:sampleSize:)`` read.
    ///   - database: How the report names the database.
    ///   - redactKeys: Show records by id instead of key.
    ///   - now: The time the report gives.
    public static func html(_ state: DatabaseState, database: String, redactKeys: Bool = false, now: Date = Date()) -> String {
        let records = state.sampled.values.reduce(0) { $0 + $1.records }
        var body = "<header><h1>Derived data: state of the database</h1>"
        body += "<p class=\"subtitle\">How current every processor's values are, how runs went, and what fails.</p>"
        body += ReportPage.facts([
            ("database", database),
            ("pipeline", state.sampled.keys.sorted().joined(separator: ", ")),
            ("records", ReportNumber.count(records)),
            ("up to date for every processor", "\(ReportNumber.count(state.status.map(\.upToDate).min() ?? 0)) records"),
            ("current failures", ReportNumber.count(state.failures.count)),
            ("made", ReportPage.timestamp(now)),
        ]) + "</header>"
        body += processors(state)
        body += runs(state)
        body += "<h2>Failures</h2>" + failures(state, redactKeys: redactKeys)
        body += distributions(state)
        body += "<footer>rederive \(HTML.escape(RederiveVersion.current)) · \(HTML.escape(ReportPage.timestamp(now)))</footer>"
        return ReportPage.document(title: "rederive report · \(database)", body: body)
    }

    private static func processors(_ state: DatabaseState) -> String {
        var html = "<h2>Processors</h2>"
        let rows = state.status.map { status in
            (label: "\(status.name) v\(status.version)", segments: RecordState.allCases.map { state in
                SVGChart.Segment(cssClass: cssClass(state), value: status.count(state), name: state.name)
            })
        }
        html += ReportPage.figure(
            SVGChart.stackedRows(
                rows, kind: "status",
                label: "records per processor: " + RecordState.allCases.map(\.name).joined(separator: ", ")
            ),
            caption: "Share of each processor's records.",
            legend: RecordState.allCases.map { (cssClass($0), $0.name) }
        )
        html += ReportPage.table(
            ["pipeline", "processor", "version", "records"] + RecordState.allCases.map(\.name),
            state.status.map { status in
                [status.pipeline, status.name, "v\(status.version)", ReportNumber.count(status.records)]
                    + RecordState.allCases.map { ReportNumber.count(status.count($0)) }
            },
            numeric: [3, 4, 5, 6], kind: "status"
        )
        return html + ReportPage.note(
            "Each record is in one state per processor: "
                + RecordState.allCases.map { "\($0.name): \($0.definition)." }.joined(separator: " ")
        )
    }

    /// The chart colour of a state.
    private static func cssClass(_ state: RecordState) -> String {
        switch state {
        case .upToDate: "ok"
        case .stale: "stale"
        case .failed: "fail"
        }
    }

    private static func runs(_ state: DatabaseState) -> String {
        var html = "<h2>Runs</h2>"
        guard !state.runs.isEmpty else { return html + ReportPage.note("No run is recorded yet.") }
        let items = state.runs.map { run -> (run: RunHistoryEntry, rate: Double, seconds: Double?) in
            let seconds = run.endedAt.map { $0.timeIntervalSince(run.startedAt) }
            let rate = seconds.map { $0 > 0 ? Double(run.counts.total) / $0 : 0 } ?? 0
            return (run, rate, seconds)
        }
        html += ReportPage.note("The \(ReportNumber.count(items.count)) most recent runs, oldest first, labelled with their id.")
        html += "<div class=\"grid\">"
        html += ReportPage.figure(
            SVGChart.bars(items.map { item in
                (String(item.run.id), item.rate,
                 "run \(item.run.id) \(item.run.status.rawValue): \(ReportNumber.format(item.rate.rounded())) records/s, \(ReportNumber.count(item.run.counts.total)) records in \(item.seconds.map { String(format: "%.1f s", $0) } ?? "?")")
            }, cssClass: "rate", kind: "run-rate", label: "records per second per run"),
            caption: "Records per second.", legend: [("rate", "records/s")]
        )
        html += ReportPage.figure(
            SVGChart.bars(items.map { item in
                (String(item.run.id), Double(item.run.counts.failed),
                 "run \(item.run.id): \(ReportNumber.count(item.run.counts.failed)) failed of \(ReportNumber.count(item.run.counts.total))")
            }, integral: true, cssClass: "fail", kind: "run-failures", label: "failed records per run"),
            caption: "Records that failed.", legend: [("fail", "failed records")]
        )
        html += "</div>"
        html += ReportPage.table(
            ["run", "started", "status", "processors", "derived", "unchanged", "failed", "records/s"],
            items.suffix(10).reversed().map { item in
                [String(item.run.id), ReportPage.timestamp(item.run.startedAt), item.run.status.rawValue,
                 item.run.processors.map { "\($0.name) v\($0.version)" }.joined(separator: ", "),
                 ReportNumber.count(item.run.counts.changed), ReportNumber.count(item.run.counts.unchanged),
                 ReportNumber.count(item.run.counts.failed), item.seconds == nil ? "–" : ReportNumber.format(item.rate.rounded())]
            },
            numeric: [0, 4, 5, 6, 7], unbroken: [1, 2], kind: "runs"
        )
        return html
    }

    private static func failures(_ state: DatabaseState, redactKeys: Bool) -> String {
        let groups = FailureGroups(state.failures.map {
            FailureGroups.Entry(kind: $0.kind, message: $0.message, processor: $0.processor, key: $0.key, recordID: $0.recordID)
        })
        guard groups.total > 0 else { return ReportPage.note("No current failure.") }
        var html = ReportPage.figure(
            SVGChart.stackedRows(
                groups.kinds.map { (label: $0.kind.rawValue, segments: [SVGChart.Segment(cssClass: "fail", value: $0.count, name: "failures")]) },
                commonScale: true, kind: "failure-kinds", label: "failures by kind"
            ),
            caption: "Failures by kind: " + groups.kinds.map { "\($0.kind.rawValue) \(ReportNumber.count($0.count))" }.joined(separator: ", ") + "."
        )
        html += groups.html(redactKeys: redactKeys)
        return html
    }

    private static func distributions(_ state: DatabaseState) -> String {
        var html = "<h2>Derived numbers</h2>"
        let columns = state.values.keys.sorted { ($0.pipeline, $0.processor, $0.column) < ($1.pipeline, $1.processor, $1.column) }
        guard !columns.isEmpty else { return html + ReportPage.note("No numeric column is derived.") }
        html += ReportPage.note(state.sampled.sorted { $0.key < $1.key }.map { pipeline, size in
            "\(pipeline): values of \(ReportNumber.count(size.sampled)) records chosen at random of \(ReportNumber.count(size.records))"
        }.joined(separator: "; ") + ". Records never derived hold the columns' defaults.")
        html += "<div class=\"grid\">"
        for identity in columns {
            let values = state.values[identity] ?? []
            let numbers = values.compactMap { $0 }
            let histogram = ValueHistograms(old: numbers, new: [], integral: identity.type == .integer, binCount: DryRunPage.binCount).old
            var caption = "\(identity.column) (\(identity.processor)): \(ReportNumber.count(numbers.count)) values"
            if numbers.count < values.count { caption += ", \(ReportNumber.count(values.count - numbers.count)) NULL" }
            if let span = Histogram.span(of: numbers) {
                caption += ", from \(ReportNumber.format(span.lowerBound)) to \(ReportNumber.format(span.upperBound))"
            }
            html += "<div data-column=\"\(HTML.escape(identity.column))\">" + ReportPage.figure(
                SVGChart.histogram([SVGChart.Series(name: identity.column, cssClass: "new", histogram: histogram)],
                                   scale: .linear, integral: identity.type == .integer, kind: "distribution", label: "distribution of \(identity.column)"),
                caption: caption + "."
            ) + "</div>"
        }
        return html + "</div>"
    }
}
