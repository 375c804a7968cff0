import Foundation

/// Where an axis puts its labelled ticks: round numbers (1, 2 or 5 times a power of ten) on a linear
/// scale; zero and powers of ten on a symmetric log scale.
enum AxisTicks {
    /// Tick values between `lower` and `upper` (in value space, not axis positions).
    static func values(from lower: Double, to upper: Double, scale: AxisScale, target: Int = 5) -> [Double] {
        guard lower.isFinite, upper.isFinite, lower < upper else { return [] }
        switch scale {
        case .linear:
            let step = niceStep((upper - lower) / Double(target))
            var ticks: [Double] = []
            var tick = (lower / step).rounded(.up) * step
            while tick <= upper + step * 1e-9 {
                ticks.append(abs(tick) < step * 1e-9 ? 0 : tick)
                tick += step
            }
            return ticks
        case .symmetricLog(let threshold):
            var ticks: [Double] = lower <= 0 && upper >= 0 ? [0] : []
            let largest = max(abs(lower), abs(upper))
            guard largest > 0, threshold > 0 else { return ticks }
            // Below the threshold the scale is linear and decades would crowd around zero.
            var power = pow(10, log10(threshold).rounded(.up))
            var decades: [Double] = []
            while power <= largest {
                decades.append(power)
                power *= 10
            }
            // At most about `target` decades on each side: every other one when there are many.
            let stride = max(1, decades.count / target)
            for (index, decade) in decades.reversed().enumerated() where index % stride == 0 {
                if decade <= upper, decade >= lower { ticks.append(decade) }
                if -decade >= lower, -decade <= upper { ticks.append(-decade) }
            }
            return ticks.sorted()
        }
    }

    /// 1, 2 or 5 times a power of ten, at least `rough`.
    static func niceStep(_ rough: Double) -> Double {
        guard rough > 0, rough.isFinite else { return 1 }
        let power = pow(10, log10(rough).rounded(.down))
        for factor in [1.0, 2, 5, 10] where factor * power >= rough {
            return factor * power
        }
        return 10 * power
    }
}
