extension CapturedRoom {
    /// A floor surface, outlined by a polygon in its own plane.
    public struct Floor: Sendable, Hashable {
        /// `[width, depth, 0]` in metres, the size of the floor's bounding rectangle.
        public var dimensions: [Double]
        /// The outline's corners as `[x, y, z]` in the floor's own plane, where x and y span the
        /// floor. Empty when the export has none (iOS 16) or the scan did not close the outline.
        public var polygonCorners: [[Double]]

        /// A floor; `dimensions` and every corner must hold 3 numbers.
        public init(dimensions: [Double], polygonCorners: [[Double]] = []) {
            self.dimensions = dimensions
            self.polygonCorners = polygonCorners
        }

        /// The floor's area in square metres: the shoelace area of its outline's (x, y)
        /// coordinates, or its bounding rectangle `dimensions[0] × dimensions[1]` when the outline
        /// has fewer than 3 corners.
        public var area: Double {
            guard polygonCorners.count >= 3 else {
                return dimensions[0] * dimensions[1]
            }
            return PlanGeometry.area(of: polygonCorners.map { PlanPoint(x: $0[0], y: $0[1]) })
        }
    }
}
