/// A unit of derivation: it owns some output columns and computes them from a decoded payload.
///
/// Its `version` is the logic version of `derive`. Bump it whenever the logic changes: every record
/// whose values were produced by another version becomes stale for this processor, and only this
/// processor's columns are recomputed.
///
/// A processor of one column is one expression (see ``real(_:name:version:default:_:)`` and its
/// siblings); the general form owns several columns and returns one value per column, in their
/// declared order:
///
/// ```swift
/// let floorArea = Processor<Room>.real("floor_area_sqm", version: 2) { room in
///     estimateFloorArea(room)
/// }
///
/// let wallMetrics = Processor<Room>(
///     name: "wall_metrics",
///     version: 1,
///     columns: [.real("wall_length_m"), .real("ceiling_height_m")]
/// ) { room in
///     [.real(room.wallLength), .real(room.ceilingHeight)]
/// }
/// ```
///
/// `derive` may throw: the record then keeps its previous values and the error is recorded as a
/// failure of that record alone.
public struct Processor<Payload: Sendable>: Sendable {
    /// The processor's stable name: stamps and failures refer to it, so it never changes.
    public let name: String
    /// The logic version of ``derive``; bump it whenever the logic changes.
    public let version: Int
    /// The output columns the processor owns, in the order ``derive`` returns their values.
    public let columns: [OutputColumn]
    /// Computes the columns' values from a decoded payload; throwing fails this record and processor alone.
    public let derive: @Sendable (Payload) throws -> [DerivedValue]

    /// Creates a processor.
    ///
    /// - Parameters:
    ///   - name: A stable name, unique among the registered pipelines' processors.
    ///   - version: The logic version of `derive`.
    ///   - columns: The output columns it owns; no other processor may claim them.
    ///   - derive: Computes one value per column, in their order, from a decoded payload.
    public init(
        name: String,
        version: Int,
        columns: [OutputColumn],
        derive: @escaping @Sendable (Payload) throws -> [DerivedValue]
    ) {
        self.name = name
        self.version = version
        self.columns = columns
        self.derive = derive
    }

    /// The processor's identity, without its logic.
    public var descriptor: ProcessorDescriptor {
        ProcessorDescriptor(name: name, version: version, columns: columns)
    }
}

/// What the engine and stores know about a processor: its name, logic version and columns.
public struct ProcessorDescriptor: Sendable, Hashable {
    /// The processor's stable name.
    public let name: String
    /// The processor's logic version.
    public let version: Int
    /// The output columns the processor owns, in order.
    public let columns: [OutputColumn]

    /// A processor's identity without its logic, as stores and reports see it.
    public init(name: String, version: Int, columns: [OutputColumn]) {
        self.name = name
        self.version = version
        self.columns = columns
    }
}
