/// A unit of derivation: it owns some output columns and computes them from a decoded payload, from
/// other processors' values, or from both.
///
/// Its `version` is the logic version of its derivation. Bump it whenever the logic changes: every
/// record whose values were produced by another version becomes stale for this processor, and only
/// this processor's columns are recomputed.
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
/// A processor that derives from other processors' values names them as inputs, and reads their
/// columns typed (see ``InputColumn``); it is derived after them, and again whenever their values change:
///
/// ```swift
/// let pricePerMeter = Processor<Room>.real("price_per_sqm", version: 1, from: floorArea.real, price.real) { area, price in
///     guard let area, let price, area > 0 else { return nil }
///     return price / area
/// }
/// ```
///
/// Deriving may throw: the record then keeps its previous values and the error is recorded as a
/// failure of that record alone.
public struct Processor<Payload: Sendable>: Sendable {
    /// The processor's stable name: stamps and failures refer to it, so it never changes.
    public let name: String
    /// The logic version of the derivation; bump it whenever the logic changes.
    public let version: Int
    /// The output columns the processor owns, in the order the derivation returns their values.
    public let columns: [OutputColumn]
    /// The other processors' columns it derives from; empty when it derives from the payload alone.
    public let inputs: [InputReference]
    /// Whether it reads the decoded payload. A processor that reads only its inputs lets a run that
    /// has nothing else to derive skip reading and inflating the payload.
    public let readsPayload: Bool
    let body: Body

    /// How a processor computes its values.
    enum Body: Sendable {
        case payload(@Sendable (Payload) throws -> [DerivedValue])
        case inputs(@Sendable (InputValues) throws -> [DerivedValue])
        case payloadAndInputs(@Sendable (Payload, InputValues) throws -> [DerivedValue])
    }

    /// Creates a processor that derives from the decoded payload.
    ///
    /// - Parameters:
    ///   - name: A stable name, unique among the pipeline's processors.
    ///   - version: The logic version of `derive`.
    ///   - columns: The output columns it owns; no other processor may claim them.
    ///   - derive: Computes one value per column, in their order, from a decoded payload.
    public init(
        name: String,
        version: Int,
        columns: [OutputColumn],
        derive: @escaping @Sendable (Payload) throws -> [DerivedValue]
    ) {
        self.init(name: name, version: version, columns: columns, inputs: [], body: .payload(derive))
    }

    /// Creates a processor that derives from other processors' values, without the payload.
    ///
    /// ```swift
    /// let summary = Processor<Room>(
    ///     name: "summary", version: 1, columns: [.text("summary")], inputs: [floorArea, wallMetrics]
    /// ) { inputs in
    ///     let area = try inputs[floorArea.real] ?? 0
    ///     let length = try inputs[wallMetrics.real("wall_length_m")] ?? 0
    ///     return [.text("\(area) m², \(length) m of walls")]
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - name: A stable name, unique among the pipeline's processors.
    ///   - version: The logic version of `derive`.
    ///   - columns: The output columns it owns; no other processor may claim them.
    ///   - inputs: The processors of the same pipeline whose values it reads.
    ///   - derive: Computes one value per column, in their order, from the inputs' values.
    public init(
        name: String,
        version: Int,
        columns: [OutputColumn],
        inputs: [Processor<Payload>],
        derive: @escaping @Sendable (InputValues) throws -> [DerivedValue]
    ) {
        self.init(name: name, version: version, columns: columns, inputs: inputs.flatMap(\.allColumns), body: .inputs(derive))
    }

    /// Creates a processor that derives from the decoded payload and other processors' values.
    ///
    /// - Parameters:
    ///   - name: A stable name, unique among the pipeline's processors.
    ///   - version: The logic version of `derive`.
    ///   - columns: The output columns it owns; no other processor may claim them.
    ///   - inputs: The processors of the same pipeline whose values it reads.
    ///   - derive: Computes one value per column, in their order, from a decoded payload and the inputs' values.
    public init(
        name: String,
        version: Int,
        columns: [OutputColumn],
        inputs: [Processor<Payload>],
        derive: @escaping @Sendable (Payload, InputValues) throws -> [DerivedValue]
    ) {
        self.init(
            name: name, version: version, columns: columns, inputs: inputs.flatMap(\.allColumns), body: .payloadAndInputs(derive)
        )
    }

    init(name: String, version: Int, columns: [OutputColumn], inputs: [InputReference], body: Body) {
        self.name = name
        self.version = version
        self.columns = columns
        self.inputs = inputs
        self.body = body
        self.readsPayload = switch body {
        case .payload, .payloadAndInputs: true
        case .inputs: false
        }
    }

    /// Derives this processor's values from a decoded payload and its inputs' values.
    ///
    /// - Throws: What the derivation throws, or an ``InputValueError`` when an input's stored value
    ///   does not have its column's type.
    public func derive(_ payload: Payload, inputs: InputValues = InputValues()) throws -> [DerivedValue] {
        switch body {
        case .payload(let derive): try derive(payload)
        case .inputs(let derive): try derive(inputs)
        case .payloadAndInputs(let derive): try derive(payload, inputs)
        }
    }

    /// The processor's identity, without its logic.
    public var descriptor: ProcessorDescriptor {
        ProcessorDescriptor(name: name, version: version, columns: columns, inputs: inputs, readsPayload: readsPayload)
    }

    /// Every column of this processor, as inputs of another.
    private var allColumns: [InputReference] {
        columns.indices.map { InputReference(processor: name, column: columns[$0].name, index: $0, type: columns[$0].type) }
    }
}

/// What the engine and stores know about a processor: its name, logic version, columns and inputs.
public struct ProcessorDescriptor: Sendable, Hashable {
    /// The processor's stable name.
    public let name: String
    /// The processor's logic version.
    public let version: Int
    /// The output columns the processor owns, in order.
    public let columns: [OutputColumn]
    /// The other processors' columns it derives from; empty when it derives from the payload alone.
    public let inputs: [InputReference]
    /// Whether it reads the decoded payload.
    public let readsPayload: Bool

    /// A processor's identity without its logic, as stores and reports see it.
    public init(name: String, version: Int, columns: [OutputColumn], inputs: [InputReference] = [], readsPayload: Bool = true) {
        self.name = name
        self.version = version
        self.columns = columns
        self.inputs = inputs
        self.readsPayload = readsPayload
    }

    /// The names of the processors it derives from, each once, in the order first read.
    public var inputProcessors: [String] {
        var seen: Set<String> = []
        return inputs.map(\.processor).filter { seen.insert($0).inserted }
    }
}

/// One column of another processor that a processor derives from.
public struct InputReference: Sendable, Hashable {
    /// The processor that owns the column.
    public let processor: String
    /// The column's name.
    public let column: String
    /// The column's position among the processor's columns, as the reading processor was built;
    /// nil when that processor has no such column (registration reports it).
    public let index: Int?
    /// The type the reading processor expects the column to have.
    public let type: ColumnType
}
