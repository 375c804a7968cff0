/// A point, or a displacement, in a two-dimensional plan.
public struct PlanPoint: Sendable, Hashable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public static func + (lhs: PlanPoint, rhs: PlanPoint) -> PlanPoint {
        PlanPoint(x: lhs.x + rhs.x, y: lhs.y + rhs.y)
    }

    public static func - (lhs: PlanPoint, rhs: PlanPoint) -> PlanPoint {
        PlanPoint(x: lhs.x - rhs.x, y: lhs.y - rhs.y)
    }

    public static func * (point: PlanPoint, scale: Double) -> PlanPoint {
        PlanPoint(x: point.x * scale, y: point.y * scale)
    }
}
