/// Inline SVG charts, written as text: no script, no font and no file outside the page. Colours come
/// from the page's style sheet through classes, so that charts follow light and dark mode.
///
/// Every chart is an `<svg class="chart" data-chart="KIND">`; its bars carry a `<title>` with the exact
/// numbers, which browsers show on hover.
enum SVGChart {
    /// The drawing area of a chart, in SVG units; the chart scales to its container's width.
    struct Frame {
        var width = 600.0
        var height = 220.0
        var left = 56.0
        var right = 14.0
        var top = 14.0
        var bottom = 40.0

        var plotWidth: Double { width - left - right }
        var plotHeight: Double { height - top - bottom }
        var baseline: Double { top + plotHeight }
    }

    /// One series of a histogram chart: bins shared with the chart's other series.
    struct Series {
        let name: String
        let cssClass: String
        let histogram: Histogram
    }

    /// Histograms of one or more series over the same bins, drawn side by side within each bin.
    /// The bins are positions on `scale` (``AxisScale/transform(_:)`` of the values); tick labels
    /// show values.
    /// With `integral`, ticks fall on integers only.
    static func histogram(_ series: [Series], scale: AxisScale, integral: Bool = false, kind: String, label: String, frame: Frame = Frame()) -> String {
        guard let first = series.first?.histogram, let low = first.lower, let high = first.upper, high > low else {
            return emptyChart(kind: kind, label: label, frame: frame)
        }
        let axis = AxisTicks.zeroBased(maximum: Double(max(1, series.map(\.histogram.maximumCount).max() ?? 1)), integral: true)
        var svg = open(kind: kind, label: label, frame: frame)
        svg += yAxis(axis, frame: frame)
        let x = { (position: Double) in frame.left + (position - low) / (high - low) * frame.plotWidth }
        for (index, bin) in first.bins.enumerated() {
            let start = x(bin.lower)
            let binWidth = x(bin.upper) - start
            let gap = min(1.0, binWidth * 0.1)
            let barWidth = (binWidth - gap) / Double(series.count)
            var counts: [String] = []
            for (offset, one) in series.enumerated() {
                let count = one.histogram.bins[index].count
                counts.append("\(one.name) \(ReportNumber.count(count))")
                guard count > 0 else { continue }
                let height = max(1, Double(count) / axis.top * frame.plotHeight)
                svg += "<rect class=\"\(one.cssClass)\" x=\(quoted(start + gap / 2 + Double(offset) * barWidth)) y=\(quoted(frame.baseline - height)) width=\(quoted(barWidth)) height=\(quoted(height))>"
                svg += "<title>\(HTML.escape(binLabel(bin, scale: scale, last: index == first.bins.count - 1))): \(HTML.escape(counts.last ?? ""))</title></rect>"
            }
        }
        for tick in AxisTicks.values(from: scale.inverse(low), to: scale.inverse(high), scale: scale, integral: integral) {
            let position = x(scale.transform(tick))
            svg += "<line class=\"tick\" x1=\(quoted(position)) x2=\(quoted(position)) y1=\(quoted(frame.baseline)) y2=\(quoted(frame.baseline + 5))/>"
            svg += "<text class=\"axis\" x=\(quoted(position)) y=\(quoted(frame.baseline + 18)) text-anchor=\"middle\">\(HTML.escape(ReportNumber.format(tick)))</text>"
        }
        if scale.isLogarithmic {
            svg += "<text class=\"axis note\" x=\(quoted(frame.width - frame.right)) y=\(quoted(frame.height - 4)) text-anchor=\"end\">log scale</text>"
        }
        return svg + "</svg>"
    }

    /// One bar per item, left to right, with item labels under the bars (thinned when many). With
    /// `integral`, the values are counts: the axis ticks on integers only.
    static func bars(
        _ items: [(label: String, value: Double, detail: String)], integral: Bool = false, cssClass: String, kind: String, label: String, frame: Frame = Frame()
    ) -> String {
        guard !items.isEmpty else { return emptyChart(kind: kind, label: label, frame: frame) }
        let axis = AxisTicks.zeroBased(maximum: items.map(\.value).filter(\.isFinite).max() ?? 0, integral: integral)
        var svg = open(kind: kind, label: label, frame: frame)
        svg += yAxis(axis, frame: frame)
        let slot = frame.plotWidth / Double(items.count)
        let labelEvery = max(1, Int((Double(items.count) / 12).rounded(.up)))
        for (index, item) in items.enumerated() {
            let x = frame.left + Double(index) * slot
            let value = item.value.isFinite ? max(0, item.value) : 0
            let height = value > 0 ? max(1, value / axis.top * frame.plotHeight) : 0
            let barWidth = min(slot * 0.7, 48)
            svg += "<rect class=\"\(cssClass)\" x=\(quoted(x + (slot - barWidth) / 2)) y=\(quoted(frame.baseline - height)) width=\(quoted(barWidth)) height=\(quoted(height))>"
            svg += "<title>\(HTML.escape(item.detail))</title></rect>"
            if index % labelEvery == 0 {
                svg += "<text class=\"axis\" x=\(quoted(x + slot / 2)) y=\(quoted(frame.baseline + 18)) text-anchor=\"middle\">\(HTML.escape(item.label))</text>"
            }
        }
        return svg + "</svg>"
    }

    /// One part of a horizontal bar.
    struct Segment {
        let cssClass: String
        let value: Int
        let name: String
    }

    /// One horizontal bar per row, split into segments proportional to their values. Each row fills
    /// the width (shares of its own total) unless `commonScale`, where the largest row does.
    static func stackedRows(_ rows: [(label: String, segments: [Segment])], commonScale: Bool = false, kind: String, label: String) -> String {
        let rowHeight = 30.0
        // Wide, so that on a laptop screen its labels are about the size of the page's text.
        var frame = Frame()
        frame.width = 1100
        frame.left = 220
        frame.top = 6
        frame.bottom = 6
        frame.height = frame.top + frame.bottom + rowHeight * Double(max(rows.count, 1))
        guard !rows.isEmpty else { return emptyChart(kind: kind, label: label, frame: frame) }
        var svg = open(kind: kind, label: label, frame: frame)
        let largest = rows.map { $0.segments.reduce(0) { $0 + $1.value } }.max() ?? 0
        for (index, row) in rows.enumerated() {
            let y = frame.top + Double(index) * rowHeight
            svg += "<text class=\"axis\" x=\(quoted(frame.left - 8)) y=\(quoted(y + rowHeight / 2 + 4)) text-anchor=\"end\">\(HTML.escape(row.label))</text>"
            let total = row.segments.reduce(0) { $0 + $1.value }
            var x = frame.left
            if total == 0 {
                svg += "<rect class=\"empty\" x=\(quoted(x)) y=\(quoted(y + 4)) width=\(quoted(frame.plotWidth)) height=\(quoted(rowHeight - 8))><title>no records</title></rect>"
                continue
            }
            for segment in row.segments where segment.value > 0 {
                let width = Double(segment.value) / Double(commonScale ? largest : total) * frame.plotWidth
                svg += "<rect class=\"\(segment.cssClass)\" x=\(quoted(x)) y=\(quoted(y + 4)) width=\(quoted(width)) height=\(quoted(rowHeight - 8))>"
                svg += "<title>\(HTML.escape("\(row.label): \(ReportNumber.count(segment.value)) \(segment.name) (\(ReportNumber.percent(segment.value, of: total)))"))</title></rect>"
                x += width
            }
        }
        return svg + "</svg>"
    }

    private static func open(kind: String, label: String, frame: Frame) -> String {
        "<svg class=\"chart\" data-chart=\"\(HTML.escape(kind))\" role=\"img\" aria-label=\"\(HTML.escape(label))\" viewBox=\"0 0 \(number(frame.width)) \(number(frame.height))\" xmlns=\"http://www.w3.org/2000/svg\">"
    }

    private static func emptyChart(kind: String, label: String, frame: Frame) -> String {
        open(kind: kind, label: label, frame: frame)
            + "<text class=\"axis\" x=\(quoted(frame.width / 2)) y=\(quoted(frame.height / 2)) text-anchor=\"middle\">no values</text></svg>"
    }

    /// The baseline and a grid line at each of the axis's ticks, with their values; the top tick is
    /// the top of the plot.
    private static func yAxis(_ axis: (top: Double, ticks: [Double]), frame: Frame) -> String {
        var svg = ""
        for tick in axis.ticks {
            let y = frame.baseline - tick / axis.top * frame.plotHeight
            svg += "<line class=\"\(tick == 0 ? "baseline" : "grid")\" x1=\(quoted(frame.left)) x2=\(quoted(frame.width - frame.right)) y1=\(quoted(y)) y2=\(quoted(y))/>"
            svg += "<text class=\"axis\" x=\(quoted(frame.left - 6)) y=\(quoted(y + 4)) text-anchor=\"end\">\(HTML.escape(ReportNumber.format(tick)))</text>"
        }
        return svg
    }

    private static func binLabel(_ bin: Histogram.Bin, scale: AxisScale, last: Bool) -> String {
        "[\(ReportNumber.format(scale.inverse(bin.lower))), \(ReportNumber.format(scale.inverse(bin.upper)))\(last ? "]" : ")")"
    }

    /// An attribute value: a coordinate with at most two decimals, quoted.
    private static func quoted(_ value: Double) -> String {
        "\"\(number(value))\""
    }

    private static func number(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
