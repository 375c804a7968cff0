/// Counts of values in equal-width bins between a lower and an upper bound.
///
/// NaN and infinite values have no place on an axis: they are counted in ``nonFinite`` and left out
/// of the bins. Values outside a given range are counted in ``outOfRange``.
public struct Histogram: Sendable, Hashable {
    /// One bin: values `v` with `lower <= v < upper`; the last bin also holds `upper` itself.
    public struct Bin: Sendable, Hashable {
        /// The bin's inclusive lower bound.
        public let lower: Double
        /// The bin's upper bound, exclusive except for the last bin.
        public let upper: Double
        /// How many values fell in the bin.
        public var count: Int
    }

    /// The bins, in increasing order; empty when there was no finite value and no range.
    public private(set) var bins: [Bin]
    /// NaN, infinite and negative infinite values, which no bin holds.
    public private(set) var nonFinite = 0
    /// Finite values outside the range the bins cover.
    public private(set) var outOfRange = 0

    /// The bins' lower bound.
    public var lower: Double? { bins.first?.lower }
    /// The bins' upper bound.
    public var upper: Double? { bins.last?.upper }
    /// The largest count of a bin, 0 without bins.
    public var maximumCount: Int { bins.map(\.count).max() ?? 0 }
    /// Values in the bins.
    public var binnedCount: Int { bins.reduce(0) { $0 + $1.count } }

    /// `binCount` bins of equal width covering `range`, or the finite values' own range when nil.
    ///
    /// When every value is the same, the bins span 1 centred on it, so that it shows as one bar in
    /// the middle (for an odd `binCount`).
    public init(_ values: [Double], binCount: Int, range: ClosedRange<Double>? = nil) {
        precondition(binCount >= 1, "a histogram has at least one bin")
        let finite = values.filter(\.isFinite)
        let span = range ?? Self.span(of: finite)
        guard let span else {
            bins = []
            nonFinite = values.count
            return
        }
        var lower = span.lowerBound
        var upper = span.upperBound
        if lower == upper {
            lower -= 0.5
            upper += 0.5
        }
        let width = (upper - lower) / Double(binCount)
        bins = (0..<binCount).map { index in
            Bin(
                lower: lower + Double(index) * width,
                upper: index == binCount - 1 ? upper : lower + Double(index + 1) * width,
                count: 0
            )
        }
        nonFinite = values.count - finite.count
        for value in finite {
            guard value >= lower, value <= upper else {
                outOfRange += 1
                continue
            }
            let index = min(binCount - 1, Int((value - lower) / width))
            bins[index].count += 1
        }
    }

    /// The smallest range holding every finite value of all `series`; nil when none has one.
    public static func span(of series: [Double]...) -> ClosedRange<Double>? {
        var lowest = Double.infinity
        var highest = -Double.infinity
        for values in series {
            for value in values where value.isFinite {
                lowest = min(lowest, value)
                highest = max(highest, value)
            }
        }
        return lowest <= highest ? lowest...highest : nil
    }

    /// The bins that suit values in `span`: one per integer, each integer in the middle of its bin,
    /// when every value is an integer and there are at most `maximum` of them, so that no bar
    /// straddles two integers; else `maximum` bins over the span. One or two integers get an empty
    /// neighbour on each side, so that a lone bar does not fill the chart as if it were a range.
    public static func layout(for span: ClosedRange<Double>, integral: Bool, maximum: Int) -> (binCount: Int, range: ClosedRange<Double>) {
        let padding = span.upperBound - span.lowerBound < 2 ? 1.0 : 0
        let integers = span.upperBound - span.lowerBound + 1 + 2 * padding
        guard integral, integers <= Double(maximum) else { return (maximum, span) }
        return (Int(integers), (span.lowerBound - padding - 0.5)...(span.upperBound + padding + 0.5))
    }
}
