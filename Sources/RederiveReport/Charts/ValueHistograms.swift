/// Histograms of a column's stored and new values over the same bins, so that their bars compare.
struct ValueHistograms {
    let old: Histogram
    let new: Histogram

    /// Integer columns get one bin per integer when their range is narrow enough.
    init(old: [Double], new: [Double], integral: Bool, binCount: Int) {
        guard let span = Histogram.span(of: old, new) else {
            self.old = Histogram(old, binCount: binCount)
            self.new = Histogram(new, binCount: binCount)
            return
        }
        let layout = Histogram.layout(for: span, integral: integral, maximum: binCount)
        self.old = Histogram(old, binCount: layout.binCount, range: layout.range)
        self.new = Histogram(new, binCount: layout.binCount, range: layout.range)
    }
}

/// The histogram of a column's differences, on the scale their magnitudes call for; its bins are
/// positions on that scale.
struct DifferenceHistogram {
    let scale: AxisScale
    let histogram: Histogram

    init(_ differences: [Double], integral: Bool, binCount: Int) {
        scale = AxisScale.choose(for: differences)
        let positions = differences.map(scale.transform)
        guard let span = Histogram.span(of: positions) else {
            histogram = Histogram(positions, binCount: binCount)
            return
        }
        // On a log scale positions are not integers even where differences are.
        let layout = Histogram.layout(for: span, integral: integral && !scale.isLogarithmic, maximum: binCount)
        histogram = Histogram(positions, binCount: layout.binCount, range: layout.range)
    }
}
