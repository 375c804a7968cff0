import Foundation
@testable import RederiveReport
import Testing

@Suite("SVG charts")
struct SVGChartTests {
    @Test func aHistogramChartDrawsOneBarPerNonEmptyBinAndSeries() {
        let histogram = Histogram([1, 2, 2, 3, 3, 3], binCount: 3)
        let other = Histogram([3], binCount: 3, range: 1...3)
        let svg = SVGChart.histogram(
            [.init(name: "old", cssClass: "old", histogram: histogram), .init(name: "new", cssClass: "new", histogram: other)],
            scale: .linear, kind: "values", label: "x <y>"
        )
        #expect(svg.hasPrefix("<svg class=\"chart\" data-chart=\"values\""))
        #expect(svg.hasSuffix("</svg>"))
        #expect(svg.occurrences(of: "<rect class=\"old\"") == 3)
        #expect(svg.occurrences(of: "<rect class=\"new\"") == 1)
        #expect(svg.contains("aria-label=\"x &lt;y&gt;\""))
        #expect(svg.selfContained)
    }

    @Test func barsScaleToTheTopOfTheAxis() throws {
        let svg = SVGChart.histogram(
            [.init(name: "n", cssClass: "new", histogram: Histogram([0, 1, 1, 1, 1], binCount: 2))],
            scale: .linear, kind: "values", label: "n"
        )
        // The plot is 166 units high and its axis tops at 4, the tallest count; 1 is a quarter of it.
        #expect(svg.attributeValues("height").compactMap(Double.init).sorted() == [41.5, 166])

        // 53 is drawn below the axis's round top of 60, with a gridline labelled at every 20.
        let rates = SVGChart.bars([("1", 53, "run 1"), ("2", 15, "run 2")], cssClass: "rate", kind: "run-rate", label: "r")
        #expect(rates.attributeValues("height").compactMap(Double.init).sorted() == [41.5, 146.63])
        #expect(rates.occurrences(of: "<line class=\"grid\"") == 3)
        for label in [">0</text>", ">20</text>", ">40</text>", ">60</text>"] {
            #expect(rates.contains(label))
        }
    }

    @Test func zeroBasedAxesEndOnTheFirstRoundNumberAtOrAboveTheMaximum() {
        #expect(AxisTicks.zeroBased(maximum: 53) == (60, [0, 20, 40, 60]))
        #expect(AxisTicks.zeroBased(maximum: 560.2) == (600, [0, 200, 400, 600]))
        #expect(AxisTicks.zeroBased(maximum: 100) == (100, [0, 20, 40, 60, 80, 100]))
        #expect(AxisTicks.zeroBased(maximum: 0.3) == (0.3, [0, 0.1, 0.2, 0.3]))
        // Counts tick on integers: 9 failures, or one.
        #expect(AxisTicks.zeroBased(maximum: 9, integral: true) == (10, [0, 2, 4, 6, 8, 10]))
        #expect(AxisTicks.zeroBased(maximum: 1, integral: true) == (1, [0, 1]))
        // Nothing to show still draws an axis.
        #expect(AxisTicks.zeroBased(maximum: 0, integral: true) == (1, [0, 1]))
    }

    @Test func aLogScaleChartSaysSoAndLabelsPowersOfTen() {
        let differences: [Double] = [0.01, 0.02, -0.5, 7, 800]
        let chart = DifferenceHistogram(differences, integral: false, binCount: 10)
        #expect(chart.scale.isLogarithmic)
        let svg = SVGChart.histogram([.init(name: "d", cssClass: "diff", histogram: chart.histogram)], scale: chart.scale, kind: "differences", label: "d")
        #expect(svg.contains("log scale"))
        #expect(svg.contains(">100</text>"))
        #expect(svg.contains(">0</text>"))
    }

    @Test func noValuesGiveAnEmptyChartThatSaysSo() {
        let svg = SVGChart.histogram([.init(name: "n", cssClass: "new", histogram: Histogram([], binCount: 5))], scale: .linear, kind: "values", label: "n")
        #expect(svg.contains("no values"))
        #expect(SVGChart.bars([], cssClass: "rate", kind: "run-rate", label: "r").contains("no values"))
    }

    @Test func linearTicksAreRoundNumbers() {
        #expect(AxisTicks.values(from: 0, to: 10, scale: .linear) == [0, 2, 4, 6, 8, 10])
        #expect(AxisTicks.values(from: -0.3, to: 0.7, scale: .linear) == [-0.2, 0, 0.2, 0.4, 0.6])
        #expect(AxisTicks.values(from: 1, to: 1, scale: .linear).isEmpty)
    }

    @Test func integerAxesTickOnIntegersOnly() {
        #expect(AxisTicks.values(from: -0.5, to: 1.5, scale: .linear, integral: true) == [0, 1])
        #expect(AxisTicks.values(from: 0.5, to: 1.5, scale: .linear, integral: true) == [1])
        #expect(AxisTicks.values(from: 0, to: 1000, scale: .linear, integral: true) == [0, 200, 400, 600, 800, 1000])
    }
}

extension String {
    func attributeValues(_ name: String) -> [String] {
        components(separatedBy: " \(name)=\"").dropFirst().compactMap { $0.split(separator: "\"", maxSplits: 1).first.map(String.init) }
    }
}
