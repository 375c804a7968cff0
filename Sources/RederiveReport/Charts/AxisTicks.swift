import Foundation

/// Where an axis puts its labelled ticks: round numbers (1, 2 or 5 times a power of ten) on a linear
/// scale; zero and powers of ten on a symmetric log scale.
enum AxisTicks {
    /// Tick values between `lower` and `upper` (in value space, not axis positions).
    /// With `integral`, only integers: a step of at least 1.
    static func values(from lower: Double, to upper: Double, scale: AxisScale, integral: Bool = false, target: Int = 5) -> [Double] {
        guard lower.isFinite, upper.isFinite, lower < upper else { return [] }
        switch scale {
        case .linear:
            let value = multiples(of: niceStep(max((upper - lower) / Double(target), integral ? 1 : 0)))
            let step = value(1)
            var ticks: [Double] = []
            var multiple = Int((lower / step).rounded(.up))
            while value(multiple) <= upper + step * 1e-9 {
                ticks.append(value(multiple))
                multiple += 1
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

    /// The top of an axis of counts or rates that starts at zero, and its ticks: multiples of a round
    /// step (at least 1 with `integral`), the top the first at or above `maximum`, so gridlines fall on
    /// numbers read at a glance (0, 20, 40, 60 rather than 0, 26.5, 53).
    static func zeroBased(maximum: Double, integral: Bool = false, target: Int = 5) -> (top: Double, ticks: [Double]) {
        let maximum = maximum > 0 && maximum.isFinite ? maximum : 1
        let value = multiples(of: niceStep(max(maximum / Double(target), integral ? 1 : 0)))
        var ticks = [0.0]
        while ticks.last! < maximum * (1 - 1e-12) {
            ticks.append(value(ticks.count))
        }
        return (ticks.last!, ticks)
    }

    /// The `multiple`th multiple of a step, computed from integers so that 3 × 0.2 reads 0.6.
    private static func multiples(of step: (mantissa: Int, exponent: Int)) -> (Int) -> Double {
        let scale = pow(10, Double(abs(step.exponent)))
        return { multiple in
            step.exponent < 0 ? Double(multiple * step.mantissa) / scale : Double(multiple * step.mantissa) * scale
        }
    }

    /// 1, 2 or 5 times a power of ten, at least `rough`: the factor and the exponent.
    static func niceStep(_ rough: Double) -> (mantissa: Int, exponent: Int) {
        guard rough > 0, rough.isFinite else { return (1, 0) }
        let exponent = Int(log10(rough).rounded(.down))
        let power = pow(10, Double(exponent))
        for factor in [1, 2, 5] where Double(factor) * power >= rough * (1 - 1e-12) {
            return (factor, exponent)
        }
        return (1, exponent + 1)
    }
}
