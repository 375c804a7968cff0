import Foundation

/// How values map onto a chart's axis: linearly, or on a symmetric log scale when their magnitudes
/// span decades, so that a few differences of 300 % do not flatten thousands of 1 % ones into one bar.
///
/// The symmetric log scale maps `x` to `sign(x) · log10(1 + |x| / c)`: linear near zero, logarithmic
/// beyond the threshold `c`, defined for negative values and zero alike.
public enum AxisScale: Sendable, Hashable {
    /// Values as they are.
    case linear
    /// `sign(x) · log10(1 + |x| / threshold)`.
    case symmetricLog(threshold: Double)

    /// How many decades the magnitudes must span for ``choose(for:)`` to pick a log scale.
    public static let decadesForLog = 2.0

    /// A log scale when the non-zero finite magnitudes of `values` span at least ``decadesForLog``
    /// decades, with the smallest magnitude as its threshold; a linear scale otherwise.
    public static func choose(for values: [Double]) -> AxisScale {
        var smallest = Double.infinity
        var largest = 0.0
        for value in values where value.isFinite && value != 0 {
            smallest = min(smallest, abs(value))
            largest = max(largest, abs(value))
        }
        guard largest > 0, log10(largest / smallest) >= decadesForLog else { return .linear }
        return .symmetricLog(threshold: smallest)
    }

    /// Where `value` sits on the axis.
    public func transform(_ value: Double) -> Double {
        switch self {
        case .linear: value
        case .symmetricLog(let threshold):
            value < 0 ? -log10(1 + -value / threshold) : log10(1 + value / threshold)
        }
    }

    /// The value that sits at `position` on the axis: the inverse of ``transform(_:)``.
    public func inverse(_ position: Double) -> Double {
        switch self {
        case .linear: position
        case .symmetricLog(let threshold):
            position < 0 ? -(pow(10, -position) - 1) * threshold : (pow(10, position) - 1) * threshold
        }
    }

    /// Whether the scale is logarithmic.
    public var isLogarithmic: Bool {
        if case .symmetricLog = self { return true }
        return false
    }
}
