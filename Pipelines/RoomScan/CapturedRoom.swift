/// The parts of a RoomPlan export (Apple's `CapturedRoom` encoded with `JSONEncoder`) that the
/// RoomScan processors read.
///
/// Everything else in the payload, notably the opaque base64 `coreModel` that makes up most of its
/// bytes, is skipped. Every array is optional, as in iOS 16 exports, which have no `floors` or
/// `sections`: an absent or `null` array reads as empty.
///
/// Decode a payload with ``init(json:)``. The tests hold it to a `JSONDecoder` reading of the same
/// exports (target `RoomScanReference`, outside every product).
public struct CapturedRoom: Sendable, Hashable {
    /// The room's walls.
    public var walls: [Wall]
    /// How many doors the export lists; their contents are not needed.
    public var doorCount: Int
    /// How many windows the export lists; their contents are not needed.
    public var windowCount: Int
    /// How many openings (doorless passages) the export lists; their contents are not needed.
    public var openingCount: Int
    /// The floor surfaces, absent from iOS 16 exports.
    public var floors: [Floor]
    /// The detected furniture and appliances.
    public var objects: [Object]
    /// The labelled parts of the room, absent from iOS 16 exports.
    public var sections: [Section]

    /// A room with the given parts; an empty room by default.
    public init(
        walls: [Wall] = [],
        doorCount: Int = 0,
        windowCount: Int = 0,
        openingCount: Int = 0,
        floors: [Floor] = [],
        objects: [Object] = [],
        sections: [Section] = []
    ) {
        self.walls = walls
        self.doorCount = doorCount
        self.windowCount = windowCount
        self.openingCount = openingCount
        self.floors = floors
        self.objects = objects
        self.sections = sections
    }
}
