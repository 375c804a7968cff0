/// A unit of derivation: it owns some output columns and computes them from a decoded payload.
///
/// Its `version` is the logic version of `derive`. Bump it whenever the logic changes: every record
/// whose values were produced by another version becomes stale for this processor, and only this
/// processor's columns are recomputed.
///
/// ```swift
/// let floorArea = Processor<Room>(
///     name: "floor_area",
///     version: 2,
///     columns: [.real("floor_area_sqm")]
/// ) { room in
///     [.real(estimateFloorArea(room))]
/// }
/// ```
///
/// `derive` returns one value per declared column, in the declared order. It may throw: the record
/// then keeps its previous values and the error is recorded as a failure of that record alone.
public struct Processor<Payload: Sendable>: Sendable {
    public let name: String
    public let version: Int
    public let columns: [OutputColumn]
    public let derive: @Sendable (Payload) throws -> [DerivedValue]

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
    public let name: String
    public let version: Int
    public let columns: [OutputColumn]

    public init(name: String, version: Int, columns: [OutputColumn]) {
        self.name = name
        self.version = version
        self.columns = columns
    }
}
