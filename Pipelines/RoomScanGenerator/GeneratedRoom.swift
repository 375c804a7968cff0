import Foundation
import Rederive
import RoomScan

/// One synthetic room, laid out in the plan and then written as a RoomPlan export.
///
/// The room is a polygon in its own plan coordinates (u, v), placed in the world by a heading
/// and an origin. Walls run along the polygon's edges, the floor's outline is the polygon itself,
/// doors, windows and openings sit on walls, and objects stand inside the polygon's bounds.
struct GeneratedRoom {
    /// The outline, counter-clockwise in plan coordinates, centred on its bounding box.
    var outline: [PlanPoint]
    var size: PlanPoint
    var heading: Double
    var origin: PlanPoint
    var floorLevel: Double
    var height: Double
    /// The indices of the outline's edges that have a wall.
    var walledEdges: [Int]
    var hasFloorOutline: Bool

    init(traits: RoomScanGenerator.Traits, using random: inout SplitMix64) {
        let width = Double.random(in: 2.0 ... 6.5, using: &random)
        let depth = Double.random(in: 1.8 ... 7.0, using: &random)
        let (w, d) = (width / 2, depth / 2)
        switch traits.shape {
        case .rectangular:
            outline = [PlanPoint(x: -w, y: -d), PlanPoint(x: w, y: -d), PlanPoint(x: w, y: d), PlanPoint(x: -w, y: d)]
        case .lShaped:
            // A notch out of one corner.
            let notchWidth = width * Double.random(in: 0.3 ... 0.6, using: &random)
            let notchDepth = depth * Double.random(in: 0.3 ... 0.6, using: &random)
            outline = [
                PlanPoint(x: -w, y: -d), PlanPoint(x: w, y: -d), PlanPoint(x: w, y: d - notchDepth),
                PlanPoint(x: w - notchWidth, y: d - notchDepth), PlanPoint(x: w - notchWidth, y: d), PlanPoint(x: -w, y: d),
            ]
        }
        size = PlanPoint(x: width, y: depth)
        heading = Double.random(in: 0 ..< 2 * .pi, using: &random)
        origin = PlanPoint(x: Double.random(in: -3 ... 3, using: &random), y: Double.random(in: -3 ... 3, using: &random))
        floorLevel = Double.random(in: -1.5 ... -0.9, using: &random)
        height = Double.random(in: 2.3 ... 2.8, using: &random)
        walledEdges = Array(outline.indices)
        hasFloorOutline = true
        if traits.isPartial {
            // A scan cut short misses a wall or two, and sometimes the floor's outline.
            for _ in 0 ..< Int.random(in: 1 ... 2, using: &random) {
                walledEdges.remove(at: Int.random(in: 0 ..< walledEdges.count, using: &random))
            }
            hasFloorOutline = Bool.random(using: &random)
        }
    }

    // MARK: Placing things in the world

    /// The world (x, z) of a plan point. The plan's axes map to (cos h, −sin h) and
    /// (−sin h, −cos h), as the first two columns of a RoomPlan floor's transform do.
    func world(_ point: PlanPoint) -> PlanPoint {
        origin + uAxis * point.x + vAxis * point.y
    }

    var uAxis: PlanPoint { PlanPoint(x: cos(heading), y: -sin(heading)) }
    var vAxis: PlanPoint { PlanPoint(x: -sin(heading), y: -cos(heading)) }

    /// A column-major transform turning about the vertical axis so that the local x axis runs
    /// along `direction` (a world (x, z) unit vector), centred at world (x, y, z).
    static func transform(direction: PlanPoint, x: Double, y: Double, z: Double) -> [Double] {
        [direction.x, 0, direction.y, 0, 0, 1, 0, 0, -direction.y, 0, direction.x, 0, x, y, z, 1]
    }

    /// A wall along one edge of the outline.
    struct Wall {
        var identifier: String
        var start: PlanPoint
        var direction: PlanPoint
        var length: Double
    }

    // MARK: Writing the export

    func tree(traits: RoomScanGenerator.Traits, using random: inout SplitMix64) -> JSONTree {
        let ios16 = traits.isIOS16
        var surfaces = Surfaces(ios16: ios16)

        // RoomPlan often fits a straight wall as two or three segments.
        let walls = walledEdges.flatMap { edge in
            let start = outline[edge], end = outline[(edge + 1) % outline.count]
            let length = ((end.x - start.x) * (end.x - start.x) + (end.y - start.y) * (end.y - start.y)).squareRoot()
            let direction = (end - start) * (1 / length)
            let segments = Double.random(in: 0 ..< 1, using: &random) < 0.3 ? Int.random(in: 2 ... 3, using: &random) : 1
            var cuts = (1 ..< segments).map { _ in length * Double.random(in: 0.2 ... 0.8, using: &random) }.sorted()
            cuts = [0] + cuts + [length]
            return (0 ..< segments).map { segment in
                Wall(identifier: Self.uuid(using: &random), start: start + direction * cuts[segment],
                     direction: direction, length: cuts[segment + 1] - cuts[segment])
            }
        }
        let wallTrees = walls.map { wall in
            let centre = world(wall.start + wall.direction * (wall.length / 2))
            // Now and then a low wall, such as a half-height partition.
            let wallHeight = Double.random(in: 0 ... 1, using: &random) < 0.05
                ? height * Double.random(in: 0.4 ... 0.9, using: &random)
                : height + Double.random(in: -0.01 ... 0.01, using: &random)
            return surfaces.surface(
                category: .object([("wall", .object([]))]), identifier: wall.identifier, parent: nil,
                dimensions: [wall.length, wallHeight, 0],
                transform: Self.transform(direction: worldDirection(wall.direction), x: centre.x,
                                          y: floorLevel + wallHeight / 2, z: centre.y),
                using: &random)
        }

        // Doors, windows and openings, each on a random wall, within its length.
        func inserts(_ count: Int, category: (inout SplitMix64) -> JSONTree, width: ClosedRange<Double>, height: ClosedRange<Double>,
                     sill: ClosedRange<Double>, using random: inout SplitMix64) -> [JSONTree] {
            guard !walls.isEmpty else { return [] }
            return (0 ..< count).map { _ in
                let wall = walls[Int.random(in: 0 ..< walls.count, using: &random)]
                let insertWidth = min(Double.random(in: width, using: &random), wall.length * 0.9)
                let along = Double.random(in: insertWidth / 2 ... max(insertWidth / 2, wall.length - insertWidth / 2), using: &random)
                let insertHeight = Double.random(in: height, using: &random)
                let centre = world(wall.start + wall.direction * along)
                let bottom = Double.random(in: sill, using: &random)
                return surfaces.surface(
                    category: category(&random), identifier: Self.uuid(using: &random), parent: wall.identifier,
                    dimensions: [insertWidth, insertHeight, 0],
                    transform: Self.transform(direction: worldDirection(wall.direction), x: centre.x,
                                              y: floorLevel + bottom + insertHeight / 2, z: centre.y),
                    using: &random)
            }
        }
        let doorCount = Int.random(in: 1 ... 4, using: &random)
        let doors = inserts(doorCount, category: { .object([("door", .object([("isOpen", .bool(Bool.random(using: &$0)))]))]) },
                            width: 0.7 ... 1.0, height: 2.0 ... 2.1, sill: 0 ... 0, using: &random)
        let windows = inserts(Int.random(in: 0 ... 3, using: &random), category: { _ in .object([("window", .object([]))]) },
                              width: 0.6 ... 1.8, height: 0.9 ... 1.5, sill: 0.6 ... 1.0, using: &random)
        let openings = inserts(Int.random(in: 0 ... 2, using: &random) / 2, category: { _ in .object([("opening", .object([]))]) },
                               width: 0.8 ... 1.6, height: 2.0 ... 2.3, sill: 0 ... 0, using: &random)

        var members: [(String, JSONTree)] = [
            ("walls", .array(wallTrees)),
            ("doors", .array(doors)),
            ("windows", .array(windows)),
            ("openings", .array(openings)),
            ("objects", .array(objects(using: &random, ios16: ios16))),
            ("version", .number(2)),
        ]
        if !ios16 {
            members.append(("floors", .array([floor(surfaces: &surfaces, using: &random)])))
            members.append(("sections", .array(sections(using: &random))))
            members.append(("story", .number(0)))
        }
        if Double.random(in: 0 ..< 1, using: &random) < 0.2 {
            let t = Self.transform(direction: PlanPoint(x: 1, y: 0), x: 0, y: 0, z: 0)
            members.append(("referenceOriginTransform", .array(t.map(JSONTree.number))))
        }
        // Real models are 17 to 416 kB of base64 and 60–93 % of their export's bytes.
        let otherBytes = Double(JSONTree.object(members).encoded(traits.isPrettyPrinted ? .prettySorted : .compact).count)
        let drawn = 17_000 * pow(416_000 / 17_000, Double.random(in: 0 ... 1, using: &random))
        let length = min(max(drawn, otherBytes * 0.61 / 0.39), otherBytes * 0.92 / 0.08)
        members.append(("coreModel", .string(Self.coreModel(length: Int(length), using: &random))))
        // Compact exports come with keys in no particular order.
        members.shuffle(using: &random)
        return .object(members)
    }

    /// A plan direction as a world (x, z) direction.
    func worldDirection(_ direction: PlanPoint) -> PlanPoint {
        uAxis * direction.x + vAxis * direction.y
    }

    /// The floor: its outline in its own plane, centred like the room.
    func floor(surfaces: inout Surfaces, using random: inout SplitMix64) -> JSONTree {
        let centre = world(PlanPoint(x: 0, y: 0))
        let transform = [uAxis.x, 0, uAxis.y, 0, vAxis.x, 0, vAxis.y, 0, 0, 1, 0, 0, centre.x, floorLevel, centre.y, 1]
        let corners = hasFloorOutline ? outline.map { [$0.x, $0.y, 0.0] } : []
        return surfaces.surface(
            category: .object([("floor", .object([]))]), identifier: Self.uuid(using: &random), parent: nil,
            dimensions: [size.x, size.y, 0], transform: transform, polygonCorners: corners, using: &random)
    }

    /// Furniture and appliances standing inside the room's bounds.
    func objects(using random: inout SplitMix64, ios16: Bool) -> [JSONTree] {
        let area = size.x * size.y
        let count = min(18, Int.random(in: 0 ... Int(area / 2) + 4, using: &random))
        return (0 ..< count).map { _ in
            let kind = ObjectKind.all[Int.random(in: 0 ..< ObjectKind.all.count, using: &random)]
            let dimensions = kind.dimensions.map { Double.random(in: $0, using: &random) }
            let position = world(PlanPoint(x: Double.random(in: -size.x / 2 ... size.x / 2, using: &random) * 0.8,
                                           y: Double.random(in: -size.y / 2 ... size.y / 2, using: &random) * 0.8))
            let angle = Double.random(in: 0 ..< 2 * .pi, using: &random)
            var members: [(String, JSONTree)] = [
                ("identifier", .string(Self.uuid(using: &random))),
                ("category", .object([(kind.name, .object([]))])),
                ("confidence", Self.confidence(using: &random)),
                ("dimensions", .array(dimensions.map(JSONTree.number))),
                ("transform", .array(Self.transform(direction: PlanPoint(x: cos(angle), y: sin(angle)), x: position.x,
                                                    y: floorLevel + dimensions[1] / 2, z: position.y).map(JSONTree.number))),
            ]
            if !ios16 {
                let attributes = kind.attributes.map { key, values in
                    (key, JSONTree.string(values[Int.random(in: 0 ..< values.count, using: &random)]))
                }
                members += [("attributes", .object(attributes)), ("parentIdentifier", .null), ("story", .number(0))]
            }
            members.shuffle(using: &random)
            return .object(members)
        }
    }

    /// One or two labelled sections.
    func sections(using random: inout SplitMix64) -> [JSONTree] {
        let labels = ["livingRoom", "bedroom", "bathroom", "kitchen", "diningRoom", "unidentified"]
        return (0 ..< Int.random(in: 1 ... 2, using: &random)).map { _ in
            let centre = world(PlanPoint(x: Double.random(in: -1 ... 1, using: &random), y: Double.random(in: -1 ... 1, using: &random)))
            return .object([
                ("label", .string(labels[Int.random(in: 0 ..< labels.count, using: &random)])),
                ("center", .array([centre.x, floorLevel + height / 2, centre.y].map(JSONTree.number))),
                ("story", .number(0)),
            ])
        }
    }

    /// An opaque blob standing in for the compressed model: base64 of random bytes, about
    /// `length` bytes long once its `/` are escaped.
    static func coreModel(length: Int, using random: inout SplitMix64) -> String {
        // Base64 takes 4 characters for 3 bytes, and 1 character in 64 is an escaped `/`.
        let count = length * 3 * 64 / (4 * 65)
        var bytes = [UInt8]()
        bytes.reserveCapacity(count + 8)
        while bytes.count < count {
            withUnsafeBytes(of: random.next()) { bytes.append(contentsOf: $0) }
        }
        return Data(bytes.prefix(count)).base64EncodedString()
    }

    static func uuid(using random: inout SplitMix64) -> String {
        let (high, low) = (random.next(), random.next())
        let hex = String(high, radix: 16, uppercase: true).leftPadded(to: 16) + String(low, radix: 16, uppercase: true).leftPadded(to: 16)
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return parts.joined(separator: "-")
    }

    static func confidence(using random: inout SplitMix64) -> JSONTree {
        let level = ["high", "high", "high", "medium", "low"][Int.random(in: 0 ..< 5, using: &random)]
        return .object([(level, .object([]))])
    }
}

/// Writes the surfaces of one export (walls, doors, windows, openings, floors) with the members
/// RoomPlan gives them on iOS 17, or on iOS 16.
struct Surfaces {
    let ios16: Bool

    func surface(
        category: JSONTree, identifier: String, parent: String?, dimensions: [Double], transform: [Double],
        polygonCorners: [[Double]] = [], using random: inout SplitMix64
    ) -> JSONTree {
        var members: [(String, JSONTree)] = [
            ("identifier", .string(identifier)),
            ("category", category),
            ("confidence", GeneratedRoom.confidence(using: &random)),
            ("dimensions", .array(dimensions.map(JSONTree.number))),
            ("transform", .array(transform.map(JSONTree.number))),
            ("completedEdges", .array([])),
            ("curve", .null),
        ]
        if !ios16 {
            members += [
                ("polygonCorners", .array(polygonCorners.map { .array($0.map(JSONTree.number)) })),
                ("parentIdentifier", parent.map(JSONTree.string) ?? .null),
                ("story", .number(0)),
            ]
        }
        members.shuffle(using: &random)
        return .object(members)
    }
}

/// The kinds of object RoomPlan detects, with plausible sizes and attributes.
struct ObjectKind {
    var name: String
    /// Ranges of width, height and depth in metres.
    var dimensions: [ClosedRange<Double>]
    var attributes: [(String, [String])] = []

    static let all: [ObjectKind] = [
        ObjectKind(name: "storage", dimensions: [0.4 ... 2.0, 0.4 ... 2.2, 0.3 ... 0.7],
                   attributes: [("StorageType", ["cabinet", "shelf"])]),
        ObjectKind(name: "chair", dimensions: [0.4 ... 0.7, 0.8 ... 1.1, 0.4 ... 0.7], attributes: [
            ("ChairArmType", ["missing", "existing"]), ("ChairBackType", ["dense", "missing"]),
            ("ChairLegType", ["four", "star"]), ("ChairType", ["dining", "stool", "swivel"]),
        ]),
        ObjectKind(name: "table", dimensions: [0.5 ... 2.0, 0.4 ... 0.8, 0.5 ... 1.2], attributes: [
            ("TableShapeType", ["rectangular", "circularElliptic"]), ("TableType", ["dining", "coffee"]),
        ]),
        ObjectKind(name: "bed", dimensions: [1.0 ... 2.0, 0.4 ... 1.1, 1.9 ... 2.2]),
        ObjectKind(name: "sofa", dimensions: [1.2 ... 2.8, 0.7 ... 1.0, 0.7 ... 1.0],
                   attributes: [("SofaType", ["rectangular", "lShaped", "singleSeat"])]),
        ObjectKind(name: "sink", dimensions: [0.4 ... 1.0, 0.8 ... 1.0, 0.4 ... 0.6]),
        ObjectKind(name: "toilet", dimensions: [0.35 ... 0.45, 0.7 ... 0.85, 0.6 ... 0.75]),
        ObjectKind(name: "bathtub", dimensions: [1.4 ... 1.8, 0.5 ... 0.6, 0.7 ... 0.8]),
        ObjectKind(name: "television", dimensions: [0.8 ... 1.6, 0.5 ... 0.9, 0.05 ... 0.1]),
        ObjectKind(name: "oven", dimensions: [0.55 ... 0.6, 0.55 ... 0.9, 0.55 ... 0.6]),
        ObjectKind(name: "dishwasher", dimensions: [0.45 ... 0.6, 0.8 ... 0.85, 0.55 ... 0.6]),
        ObjectKind(name: "refrigerator", dimensions: [0.6 ... 0.9, 1.5 ... 1.9, 0.6 ... 0.75]),
        ObjectKind(name: "fireplace", dimensions: [0.8 ... 1.5, 0.8 ... 1.2, 0.3 ... 0.6]),
    ]
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}
