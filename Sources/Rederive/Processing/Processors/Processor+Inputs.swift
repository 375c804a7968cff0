/// Processors of one column that derive from other processors' columns, without the payload: the
/// closure receives each input column's value, typed, in the order the inputs are listed.
///
/// ```swift
/// let roomType = Processor<Room>.text(
///     "room_type", version: 1, from: floorArea.real, objectCategories.text, sectionLabels.text
/// ) { area, categories, labels in
///     try classify(area: area, categories: categories, labels: labels)
/// }
/// ```
///
/// Such a processor is derived after its inputs, and again only when their values change; a run that
/// has only such processors to derive never reads or inflates a payload.
extension Processor {
    /// A processor of one `REAL` column derived from other processors' columns.
    public static func real<each Input: Sendable>(
        _ column: String,
        name: String? = nil,
        version: Int,
        default defaultValue: Double? = nil,
        from inputs: repeat InputColumn<each Input>,
        derive: @escaping @Sendable (repeat each Input) throws -> Double?
    ) -> Processor {
        dependent(.real(column, default: defaultValue), name: name, version: version, inputs: references(repeat each inputs)) { values in
            try derive(repeat values[each inputs]).map(DerivedValue.real) ?? .null
        }
    }

    /// A processor of one `INTEGER` column derived from other processors' columns.
    public static func integer<each Input: Sendable>(
        _ column: String,
        name: String? = nil,
        version: Int,
        default defaultValue: Int64? = nil,
        from inputs: repeat InputColumn<each Input>,
        derive: @escaping @Sendable (repeat each Input) throws -> Int?
    ) -> Processor {
        dependent(.integer(column, default: defaultValue), name: name, version: version, inputs: references(repeat each inputs)) { values in
            try derive(repeat values[each inputs]).map(DerivedValue.integer) ?? .null
        }
    }

    /// A processor of one `INTEGER` column holding 1 for true and 0 for false, derived from other
    /// processors' columns.
    public static func boolean<each Input: Sendable>(
        _ column: String,
        name: String? = nil,
        version: Int,
        default defaultValue: Bool? = nil,
        from inputs: repeat InputColumn<each Input>,
        derive: @escaping @Sendable (repeat each Input) throws -> Bool?
    ) -> Processor {
        dependent(.integer(column, default: defaultValue.map { $0 ? 1 : 0 }), name: name, version: version, inputs: references(repeat each inputs)) { values in
            try derive(repeat values[each inputs]).map { DerivedValue.integer($0 ? 1 : 0) } ?? .null
        }
    }

    /// A processor of one `TEXT` column derived from other processors' columns.
    public static func text<each Input: Sendable>(
        _ column: String,
        name: String? = nil,
        version: Int,
        default defaultValue: String? = nil,
        from inputs: repeat InputColumn<each Input>,
        derive: @escaping @Sendable (repeat each Input) throws -> String?
    ) -> Processor {
        dependent(.text(column, default: defaultValue), name: name, version: version, inputs: references(repeat each inputs)) { values in
            try derive(repeat values[each inputs]).map(DerivedValue.text) ?? .null
        }
    }

    /// A processor of one `BLOB` column derived from other processors' columns.
    public static func blob<each Input: Sendable>(
        _ column: String,
        name: String? = nil,
        version: Int,
        from inputs: repeat InputColumn<each Input>,
        derive: @escaping @Sendable (repeat each Input) throws -> [UInt8]?
    ) -> Processor {
        dependent(.blob(column), name: name, version: version, inputs: references(repeat each inputs)) { values in
            try derive(repeat values[each inputs]).map(DerivedValue.blob) ?? .null
        }
    }

    private static func dependent(
        _ column: OutputColumn, name: String?, version: Int, inputs: [InputReference],
        value: @escaping @Sendable (InputValues) throws -> DerivedValue
    ) -> Processor {
        Processor(name: name ?? column.name, version: version, columns: [column], inputs: inputs, body: .inputs { [try value($0)] })
    }

    private static func references<each Input>(_ inputs: repeat InputColumn<each Input>) -> [InputReference] {
        var references: [InputReference] = []
        repeat references.append((each inputs).reference)
        return references
    }
}
