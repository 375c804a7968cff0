import RederiveReport
import Testing

@Suite("Histogram binning")
struct HistogramTests {
    @Test func valuesFallInEqualWidthBinsAndTheMaximumInTheLastOne() {
        let histogram = Histogram([0, 1, 2.5, 4.99, 5, 9.99, 10], binCount: 2)
        #expect(histogram.bins.map(\.lower) == [0, 5])
        #expect(histogram.bins.map(\.upper) == [5, 10])
        #expect(histogram.bins.map(\.count) == [4, 3])
        #expect(histogram.binnedCount == 7)
    }

    @Test func aFixedBinCountCoversTheFiniteValuesExactly() {
        let values = (0..<1000).map { Double($0) * 0.37 - 50 }
        let histogram = Histogram(values, binCount: 30)
        #expect(histogram.bins.count == 30)
        #expect(histogram.lower == -50)
        #expect(histogram.upper == values.max())
        #expect(histogram.binnedCount == 1000)
        #expect(zip(histogram.bins, histogram.bins.dropFirst()).allSatisfy { $0.upper == $1.lower })
    }

    @Test func nanAndInfinitiesAreCountedApartAndDoNotStretchTheBins() {
        let histogram = Histogram([1, 2, 3, .nan, .infinity, -.infinity], binCount: 4)
        #expect(histogram.nonFinite == 3)
        #expect(histogram.binnedCount == 3)
        #expect(histogram.lower == 1)
        #expect(histogram.upper == 3)
    }

    @Test func onlyNonFiniteValuesGiveNoBins() {
        let histogram = Histogram([.nan, .infinity], binCount: 10)
        #expect(histogram.bins.isEmpty)
        #expect(histogram.nonFinite == 2)
        #expect(Histogram([], binCount: 10).bins.isEmpty)
    }

    @Test func oneRepeatedValueIsOneBarInTheMiddle() {
        let histogram = Histogram([7, 7, 7], binCount: 3)
        #expect(histogram.bins.map(\.count) == [0, 3, 0])
        #expect(histogram.lower == 6.5)
        #expect(histogram.upper == 7.5)
    }

    @Test func valuesOutsideAGivenRangeAreCountedApart() {
        let histogram = Histogram([-1, 0, 5, 10, 11], binCount: 5, range: 0...10)
        #expect(histogram.outOfRange == 2)
        #expect(histogram.bins.map(\.count) == [1, 0, 1, 0, 1])
    }

    @Test func narrowIntegerRangesGetOneBinPerInteger() {
        let layout = Histogram.layout(for: 2...6, integral: true, maximum: 30)
        #expect(layout.binCount == 5)
        #expect(layout.range == 1.5...6.5)
        let histogram = Histogram([2, 3, 3, 6], binCount: layout.binCount, range: layout.range)
        #expect(histogram.bins.map(\.count) == [1, 2, 0, 0, 1])
        let wide = Histogram.layout(for: 0...1000, integral: true, maximum: 30)
        #expect(wide.binCount == 30)
        #expect(wide.range == 0...1000)
        #expect(Histogram.layout(for: 2...6, integral: false, maximum: 30).binCount == 30)
    }

    @Test func aLoneIntegerGetsAnEmptyBinOnEachSide() {
        let layout = Histogram.layout(for: 1...1, integral: true, maximum: 30)
        #expect(layout.binCount == 3)
        #expect(layout.range == -0.5...2.5)
        #expect(Histogram([1, 1], binCount: layout.binCount, range: layout.range).bins.map(\.count) == [0, 2, 0])
        #expect(Histogram.layout(for: 1...2, integral: true, maximum: 30).binCount == 4)
    }

    @Test func spanCoversEverySeriesAndIgnoresNonFiniteValues() {
        #expect(Histogram.span(of: [3, .nan, 8], [-2, .infinity]) == -2...8)
        #expect(Histogram.span(of: [.nan], []) == nil)
    }
}

@Suite("Axis scale")
struct AxisScaleTests {
    @Test func differencesThatSpanDecadesGetASymmetricLogScale() {
        let scale = AxisScale.choose(for: [0.01, -0.02, 0.05, 3, 0])
        #expect(scale == .symmetricLog(threshold: 0.01))
        #expect(scale.isLogarithmic)
    }

    @Test func differencesWithinLessThanTwoDecadesStayLinear() {
        #expect(AxisScale.choose(for: [1, 5, -20, 99]) == .linear)
        #expect(AxisScale.choose(for: []) == .linear)
        #expect(AxisScale.choose(for: [0, 0]) == .linear)
        #expect(AxisScale.choose(for: [1, .nan, .infinity, 50]) == .linear)
    }

    @Test func theLogScaleIsMonotonicSymmetricAndInvertible() {
        let scale = AxisScale.symmetricLog(threshold: 0.5)
        let values: [Double] = [-5000, -3, -0.5, -0.01, 0, 0.01, 0.5, 3, 5000]
        let positions = values.map(scale.transform)
        #expect(positions == positions.sorted())
        #expect(scale.transform(0) == 0)
        #expect(scale.transform(-3) == -scale.transform(3))
        for value in values {
            #expect(abs(scale.inverse(scale.transform(value)) - value) <= 1e-9 * max(1, abs(value)))
        }
        // Each decade beyond the threshold takes about the same room on the axis.
        let decade1 = scale.transform(500) - scale.transform(50)
        let decade2 = scale.transform(5000) - scale.transform(500)
        #expect(abs(decade1 - decade2) < 0.01)
    }
}

@Suite("Sampling")
struct ReservoirTests {
    @Test func aSampleHoldsAtMostItsCapacityAndSaysHowManyItSaw() {
        var sample = Reservoir<Int>(capacity: 100)
        for value in 0..<10_000 { sample.add(value) }
        #expect(sample.elements.count == 100)
        #expect(sample.seen == 10_000)
        #expect(!sample.isComplete)
        #expect(Set(sample.elements).count == 100)
        #expect(sample.elements.allSatisfy { (0..<10_000).contains($0) })
    }

    @Test func aShortStreamIsKeptWhole() {
        var sample = Reservoir<Int>(capacity: 100)
        for value in 0..<40 { sample.add(value) }
        #expect(sample.elements == Array(0..<40))
        #expect(sample.isComplete)
    }

    @Test func theSameStreamAndSeedGiveTheSameSampleAndAnotherSeedAnother() {
        func sample(seed: UInt64) -> [Int] {
            var sample = Reservoir<Int>(capacity: 50, seed: seed)
            for value in 0..<5_000 { sample.add(value) }
            return sample.elements
        }
        #expect(sample(seed: 1) == sample(seed: 1))
        #expect(sample(seed: 1) != sample(seed: 2))
    }

    @Test func everyPartOfTheStreamIsRepresented() {
        // Uniform sampling keeps about a tenth of the sample from each tenth of the stream: a sample
        // that kept only the first or last elements would fail this.
        var sample = Reservoir<Int>(capacity: 2_000, seed: 7)
        for value in 0..<100_000 { sample.add(value) }
        var tenths = Array(repeating: 0, count: 10)
        for value in sample.elements { tenths[value / 10_000] += 1 }
        #expect(tenths.allSatisfy { (130...270).contains($0) }, "per tenth: \(tenths)")
    }
}
