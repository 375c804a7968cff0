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
        var references: [InputReference] = []
        repeat references.append((each inputs).reference)
        return Processor(
            name: name ?? column, version: version, columns: [.real(column, default: defaultValue)], inputs: references,
            body: .inputs { values in [try derive(repeat values[each inputs]).map(DerivedValue.real) ?? .null] }
        )
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
        var references: [InputReference] = []
        repeat references.append((each inputs).reference)
        return Processor(
            name: name ?? column, version: version, columns: [.integer(column, default: defaultValue)], inputs: references,
            body: .inputs { values in [try derive(repeat values[each inputs]).map(DerivedValue.integer) ?? .null] }
        )
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
        var references: [InputReference] = []
        repeat references.append((each inputs).reference)
        return Processor(
            name: name ?? column, version: version,
            columns: [.integer(column, default: defaultValue.map { $0 ? 1 : 0 })], inputs: references,
            body: .inputs { values in [try derive(repeat values[each inputs]).map { DerivedValue.integer($0 ? 1 : 0) } ?? .null] }
        )
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
        var references: [InputReference] = []
        repeat references.append((each inputs).reference)
        return Processor(
            name: name ?? column, version: version, columns: [.text(column, default: defaultValue)], inputs: references,
            body: .inputs { values in [try derive(repeat values[each inputs]).map(DerivedValue.text) ?? .null] }
        )
    }

    /// A processor of one `BLOB` column derived from other processors' columns.
    public static func blob<each Input: Sendable>(
        _ column: String,
        name: String? = nil,
        version: Int,
        from inputs: repeat InputColumn<each Input>,
        derive: @escaping @Sendable (repeat each Input) throws -> [UInt8]?
    ) -> Processor {
        var references: [InputReference] = []
        repeat references.append((each inputs).reference)
        return Processor(
            name: name ?? column, version: version, columns: [.blob(column)], inputs: references,
            body: .inputs { values in [try derive(repeat values[each inputs]).map(DerivedValue.blob) ?? .null] }
        )
    }
}
