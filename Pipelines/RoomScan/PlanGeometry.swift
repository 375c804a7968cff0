/// Areas and hulls of points in a plan.
public enum PlanGeometry {
    /// The absolute area enclosed by a polygon whose vertices are given in order (the shoelace
    /// formula); 0 for fewer than 3 vertices.
    public static func area(of polygon: [PlanPoint]) -> Double {
        guard polygon.count >= 3 else { return 0 }
        var twiceSignedArea = 0.0
        var previous = polygon[polygon.count - 1]
        for point in polygon {
            twiceSignedArea += previous.x * point.y - point.x * previous.y
            previous = point
        }
        return abs(twiceSignedArea) / 2
    }

    /// The vertices of the smallest convex polygon holding every point, counter-clockwise, without
    /// repeated or collinear vertices (Andrew's monotone chain).
    public static func convexHull(of points: [PlanPoint]) -> [PlanPoint] {
        let sorted = points.sorted { ($0.x, $0.y) < ($1.x, $1.y) }
        guard sorted.count >= 3 else { return sorted }

        // Whether o→a→b turns strictly left.
        func turnsLeft(_ o: PlanPoint, _ a: PlanPoint, _ b: PlanPoint) -> Bool {
            (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x) > 0
        }
        var hull: [PlanPoint] = []
        hull.reserveCapacity(sorted.count + 1)
        // The lower chain left to right, then the upper chain right to left.
        for pass in [sorted, sorted.reversed()] {
            let chainStart = hull.count
            for point in pass {
                while hull.count >= chainStart + 2, !turnsLeft(hull[hull.count - 2], hull[hull.count - 1], point) {
                    hull.removeLast()
                }
                hull.append(point)
            }
            // Each chain's last point starts the other one.
            hull.removeLast()
        }
        return hull
    }
}
