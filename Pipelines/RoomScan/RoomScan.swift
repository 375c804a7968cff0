import Rederive

/// The built-in pipeline: facts about rooms scanned with Apple's RoomPlan, derived from the
/// `CapturedRoom` JSON each record stores.
///
/// Records live in `room_scans` (`id INTEGER PRIMARY KEY`, a unique `scan_id`, and the compressed
/// export in `payload`); the derived columns go to the companion table `room_scans_derived`, or to
/// `room_scans` itself with ``pipeline(layout:)`` and `.inline`.
///
/// Every column defaults to `NULL`: a record that has not been derived yet has unknown facts, and
/// a default such as `0` walls or `[]` sections would be indistinguishable from a real empty scan.
public enum RoomScan {
    /// `floor_area_sqm`: see ``CapturedRoom/floorArea``.
    public static let floorArea = Processor<CapturedRoom>.real("floor_area_sqm", name: "floor_area", version: 1) { room in
        room.floorArea
    }

    /// How many of each kind of element the scan found.
    public static let elementCounts = Processor<CapturedRoom>(
        name: "element_counts",
        version: 1,
        columns: [
            .integer("wall_count"),
            .integer("door_count"),
            .integer("window_count"),
            .integer("opening_count"),
            .integer("object_count"),
        ]
    ) { room in
        [
            .integer(room.wallCount),
            .integer(room.doorCount),
            .integer(room.windowCount),
            .integer(room.openingCount),
            .integer(room.objectCount),
        ]
    }

    /// `wall_length_m` and `ceiling_height_m`: see ``CapturedRoom/wallLength`` and
    /// ``CapturedRoom/ceilingHeight``.
    public static let wallMetrics = Processor<CapturedRoom>(
        name: "wall_metrics",
        version: 1,
        columns: [.real("wall_length_m"), .real("ceiling_height_m")]
    ) { room in
        [.real(room.wallLength), .real(room.ceilingHeight)]
    }

    /// `object_categories`: see ``CapturedRoom/objectCategoriesJSON``.
    public static let objectCategories = Processor<CapturedRoom>.text("object_categories", version: 1) { room in
        room.objectCategoriesJSON
    }

    /// `section_labels`: see ``CapturedRoom/sectionLabelsJSON``.
    public static let sectionLabels = Processor<CapturedRoom>.text("section_labels", version: 1) { room in
        room.sectionLabelsJSON
    }

    /// `room_type`: see ``RoomType/classify(floorArea:objectCategories:sectionLabels:)``. It derives from
    /// three other processors' columns, never from the payload: a change to the rules re-derives it
    /// without inflating a single payload, and it follows a fix to the floor area on its own.
    public static let roomType = Processor<CapturedRoom>.text(
        "room_type", version: 1, from: floorArea.real, objectCategories.text, sectionLabels.text
    ) { area, categories, labels in
        try RoomType.classify(floorArea: area, objectCategories: categories, sectionLabels: labels)
    }

    /// What the processors read of a payload, kept beside their values in a fixed binary layout
    /// (``CapturedRoom/projectionBytes``): a bump of a processor that reads the payload derives from
    /// it without inflating the payload. Bump the version whenever the decoder or the layout changes
    /// (2: an object with none of a room's arrays, such as `{}`, is no longer a room).
    public static let projection = Projection<CapturedRoom>(
        version: 2, encode: { room in room.projectionBytes }, decode: { bytes in try CapturedRoom(projection: bytes) }
    )

    /// Every processor of the pipeline, in column order.
    public static let processors = [floorArea, elementCounts, wallMetrics, objectCategories, sectionLabels, roomType]

    /// The pipeline with its derived columns in the companion table `room_scans_derived`.
    public static let pipeline = pipeline(layout: .companion(table: "room_scans_derived"))

    /// The pipeline with its derived columns where `layout` says.
    public static func pipeline(layout: Pipeline.Layout) -> Pipeline {
        Pipeline(
            name: "roomscan",
            table: "room_scans",
            idColumn: "id",
            keyColumn: "scan_id",
            payloadColumn: "payload",
            layout: layout,
            decode: { json in try CapturedRoom(json: json) },
            projection: projection,
            processors: processors
        )
    }
}
