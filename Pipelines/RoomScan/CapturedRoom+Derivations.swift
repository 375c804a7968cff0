/// The facts the RoomScan processors store, each a plain function of the decoded room.
extension CapturedRoom {
    /// The floor area in square metres.
    ///
    /// The sum of the floors' areas (see ``Floor/area``). An export without floors (iOS 16, or a
    /// scan that found none) falls back to the area of the convex hull of the walls' endpoints in
    /// the floor plan, which is exact for convex rooms and an overestimate otherwise. 0 when there
    /// is nothing to measure.
    public var floorArea: Double {
        if !floors.isEmpty {
            return floors.reduce(0) { $0 + $1.area }
        }
        let hull = PlanGeometry.convexHull(of: walls.flatMap(\.planEndpoints))
        return PlanGeometry.area(of: hull)
    }

    /// How many walls the export lists.
    public var wallCount: Int { walls.count }

    /// How many objects the export lists.
    public var objectCount: Int { objects.count }

    /// The total length of the walls in metres: the sum of their `dimensions[0]`.
    public var wallLength: Double {
        walls.reduce(0) { $0 + $1.length }
    }

    /// The typical ceiling height in metres: the median of the walls' heights (`dimensions[1]`),
    /// the mean of the two middle ones for an even count, 0 without walls.
    ///
    /// The median ignores the odd short wall segment that RoomPlan fits around a beam or a
    /// half-height partition.
    public var ceilingHeight: Double {
        let heights = walls.map(\.height).sorted()
        guard !heights.isEmpty else { return 0 }
        let middle = heights.count / 2
        return heights.count.isMultiple(of: 2) ? (heights[middle - 1] + heights[middle]) / 2 : heights[middle]
    }

    /// How many objects there are of each category.
    ///
    /// Categories are Swift strings, so two canonically equivalent spellings of a name count as one.
    public var objectCategoryCounts: [String: Int] {
        objects.reduce(into: [:]) { counts, object in counts[object.category, default: 0] += 1 }
    }

    /// ``objectCategoryCounts`` as a compact JSON object with sorted keys, such as
    /// `{"chair":2,"table":1}`; `{}` when there are no objects.
    public var objectCategoriesJSON: String {
        CompactJSON.object(objectCategoryCounts)
    }

    /// The sections' labels in export order as a compact JSON array, such as
    /// `["kitchen","diningRoom"]`; `[]` when there are none.
    public var sectionLabelsJSON: String {
        CompactJSON.array(sections.map(\.label))
    }
}
