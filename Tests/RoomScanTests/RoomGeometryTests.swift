import RoomScan
import Testing

@Suite("Plan geometry")
struct PlanGeometryTests {
    @Test("the shoelace area ignores the winding direction")
    func shoelaceAreaIsAbsolute() {
        let square = [PlanPoint(x: 0, y: 0), PlanPoint(x: 2, y: 0), PlanPoint(x: 2, y: 2), PlanPoint(x: 0, y: 2)]
        #expect(PlanGeometry.area(of: square) == 4)
        #expect(PlanGeometry.area(of: square.reversed()) == 4)
    }

    @Test("fewer than three points enclose nothing")
    func degeneratePolygonsHaveNoArea() {
        #expect(PlanGeometry.area(of: []) == 0)
        #expect(PlanGeometry.area(of: [PlanPoint(x: 1, y: 1), PlanPoint(x: 3, y: 4)]) == 0)
    }

    @Test("the convex hull drops interior, repeated and collinear points")
    func convexHullKeepsOnlyCorners() {
        let points = [
            PlanPoint(x: 0, y: 0), PlanPoint(x: 4, y: 0), PlanPoint(x: 4, y: 3), PlanPoint(x: 0, y: 3),
            PlanPoint(x: 2, y: 0), PlanPoint(x: 1, y: 1), PlanPoint(x: 4, y: 3), PlanPoint(x: 0, y: 1.5),
        ]
        let hull = PlanGeometry.convexHull(of: points)
        #expect(Set(hull) == [PlanPoint(x: 0, y: 0), PlanPoint(x: 4, y: 0), PlanPoint(x: 4, y: 3), PlanPoint(x: 0, y: 3)])
        #expect(hull.count == 4)
        #expect(PlanGeometry.area(of: hull) == 12)
    }

    @Test("collinear points have a hull without area")
    func collinearPointsHaveNoHullArea() {
        let points = (0..<5).map { PlanPoint(x: Double($0), y: 2 * Double($0)) }
        #expect(PlanGeometry.area(of: PlanGeometry.convexHull(of: points)) == 0)
    }
}

@Suite("Room derivations")
struct RoomDerivationTests {
    /// A wall of the given length and height centred at (x, z), running along (dx, dz).
    static func wall(length: Double, height: Double = 2.5, x: Double, z: Double, dx: Double, dz: Double) -> CapturedRoom.Wall {
        CapturedRoom.Wall(
            dimensions: [length, height, 0],
            transform: [dx, 0, dz, 0, 0, 1, 0, 0, -dz, 0, dx, 0, x, height / 2, z, 1]
        )
    }

    /// The four walls of a 4 m × 3 m room centred on the origin.
    static let rectangle = [
        wall(length: 4, x: 0, z: -1.5, dx: 1, dz: 0),
        wall(length: 3, x: 2, z: 0, dx: 0, dz: 1),
        wall(length: 4, x: 0, z: 1.5, dx: -1, dz: 0),
        wall(length: 3, x: -2, z: 0, dx: 0, dz: -1),
    ]

    @Test("a wall's plan endpoints lie half its length either side of its centre")
    func wallEndpoints() {
        let wall = Self.wall(length: 2, x: 1, z: 1, dx: 0.6, dz: 0.8)
        let expected = [PlanPoint(x: 0.4, y: 0.2), PlanPoint(x: 1.6, y: 1.8)]
        for (point, want) in zip(wall.planEndpoints, expected) {
            #expect(abs(point.x - want.x) < 1e-12 && abs(point.y - want.y) < 1e-12)
        }
    }

    @Test("without floors the area is the hull of the walls: a 4 m × 3 m room has 12 m²")
    func hullOfRectangleWalls() {
        let room = CapturedRoom(walls: Self.rectangle)
        #expect(abs(room.floorArea - 12) < 1e-12)
    }

    @Test("a rotated rectangle of walls keeps its area")
    func hullOfRotatedWalls() {
        let (c, s) = (0.6, 0.8)
        let rotated = Self.rectangle.map { wall -> CapturedRoom.Wall in
            let t = wall.transform
            return Self.wall(
                length: wall.length, x: c * t[12] - s * t[14], z: s * t[12] + c * t[14],
                dx: c * t[0] - s * t[2], dz: s * t[0] + c * t[2])
        }
        #expect(abs(CapturedRoom(walls: rotated).floorArea - 12) < 1e-9)
    }

    @Test("floors are measured by their outline, or their rectangle when it has under three corners")
    func floorsUseOutlineOrRectangle() {
        let lShape: [[Double]] = [[0, 0, 0], [4, 0, 0], [4, 2, 0], [2, 2, 0], [2, 3, 0], [0, 3, 0]]
        let room = CapturedRoom(
            walls: Self.rectangle,
            floors: [
                CapturedRoom.Floor(dimensions: [4, 3, 0], polygonCorners: lShape),
                CapturedRoom.Floor(dimensions: [1.5, 2, 0], polygonCorners: [[0, 0, 0], [1, 1, 0]]),
            ]
        )
        #expect(room.floorArea == 10 + 3)
    }

    @Test("a room with nothing to measure has no area, length or height")
    func emptyRoom() {
        let room = CapturedRoom()
        #expect(room.floorArea == 0)
        #expect(room.wallLength == 0)
        #expect(room.ceilingHeight == 0)
        #expect(room.objectCategoriesJSON == "{}")
        #expect(room.sectionLabelsJSON == "[]")
    }

    @Test("the ceiling height is the median wall height")
    func ceilingHeightIsMedian() {
        let heights = [2.4, 1.0, 2.5, 2.45]
        var room = CapturedRoom(walls: heights.map { Self.wall(length: 1, height: $0, x: 0, z: 0, dx: 1, dz: 0) })
        #expect(abs(room.ceilingHeight - 2.425) < 1e-12)
        room.walls.removeFirst()
        #expect(room.ceilingHeight == 2.45)
    }

    @Test("object categories are counted into sorted compact JSON")
    func objectCategoriesAreCountedAndSorted() {
        let room = CapturedRoom(objects: ["table", "chair", "chair", "Zebra", "é"].map(CapturedRoom.Object.init))
        #expect(room.objectCategoriesJSON == #"{"Zebra":1,"chair":2,"table":1,"é":1}"#)
    }

    @Test("section labels keep their order and are escaped as JSON")
    func sectionLabelsAreEscaped() {
        let room = CapturedRoom(sections: ["kitchen", "a\"b\\c", "tab\there", "\u{1}"].map(CapturedRoom.Section.init))
        #expect(room.sectionLabelsJSON == #"["kitchen","a\"b\\c","tab\there","\u0001"]"#)
    }
}
