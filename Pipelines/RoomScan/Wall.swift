extension CapturedRoom {
    /// A wall: a vertical rectangle placed in the room by a transform.
    public struct Wall: Sendable, Hashable {
        /// `[length, height, 0]` in metres.
        public var dimensions: [Double]
        /// A 4×4 column-major matrix: the wall runs along its first column `(t[0], t[1], t[2])`, and
        /// its centre is the translation `(t[12], t[13], t[14])`. The y axis points up, so the
        /// floor plan is the x-z plane.
        public var transform: [Double]

        /// A wall; `dimensions` must hold 3 numbers and `transform` 16.
        public init(dimensions: [Double], transform: [Double]) {
            self.dimensions = dimensions
            self.transform = transform
        }

        /// The wall's length along the floor, in metres.
        public var length: Double { dimensions[0] }

        /// The wall's height, in metres.
        public var height: Double { dimensions[1] }

        /// The wall's two ends in the floor plan, as (x, z) points: its centre `(t[12], t[14])`
        /// moved half its length either way along its direction `(t[0], t[2])`.
        public var planEndpoints: [PlanPoint] {
            let centre = PlanPoint(x: transform[12], y: transform[14])
            let halfRun = PlanPoint(x: transform[0], y: transform[2]) * (length / 2)
            return [centre - halfRun, centre + halfRun]
        }
    }
}
