/// A point, or a displacement, in a two-dimensional plan.
public struct PlanPoint: Sendable, Hashable {
    /// The first coordinate, in metres.
    public var x: Double
    /// The second coordinate, in metres.
    public var y: Double

    /// The point at (x, y).
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// The sum, component by component.
    public static func + (lhs: PlanPoint, rhs: PlanPoint) -> PlanPoint {
        PlanPoint(x: lhs.x + rhs.x, y: lhs.y + rhs.y)
    }

    /// The difference, component by component.
    public static func - (lhs: PlanPoint, rhs: PlanPoint) -> PlanPoint {
        PlanPoint(x: lhs.x - rhs.x, y: lhs.y - rhs.y)
    }

    /// The point scaled by a factor.
    public static func * (point: PlanPoint, scale: Double) -> PlanPoint {
        PlanPoint(x: point.x * scale, y: point.y * scale)
    }
}
