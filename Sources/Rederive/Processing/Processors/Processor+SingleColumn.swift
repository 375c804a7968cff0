/// Processors that own one column, declared in one expression: the column's type is the function's
/// name, and the closure returns the value itself. Returning `nil` stores `NULL`.
///
/// ```swift
/// let floorArea = Processor<Room>.real("floor_area_sqm", version: 2) { room in
///     estimateFloorArea(room)
/// }
/// ```
///
/// The processor is named after its column unless `name` says otherwise. Since exactly one value of
/// the column's type comes back, such a processor cannot return the wrong number or kind of values.
extension Processor {
    /// A processor that owns one `REAL` column.
    public static func real(
        _ column: String,
        name: String? = nil,
        version: Int,
        default defaultValue: Double? = nil,
        _ derive: @escaping @Sendable (Payload) throws -> Double?
    ) -> Processor {
        single(.real(column, default: defaultValue), name: name, version: version) { payload in
            try derive(payload).map(DerivedValue.real) ?? .null
        }
    }

    /// A processor that owns one `INTEGER` column.
    public static func integer(
        _ column: String,
        name: String? = nil,
        version: Int,
        default defaultValue: Int64? = nil,
        _ derive: @escaping @Sendable (Payload) throws -> Int?
    ) -> Processor {
        single(.integer(column, default: defaultValue), name: name, version: version) { payload in
            try derive(payload).map(DerivedValue.integer) ?? .null
        }
    }

    /// A processor that owns one `INTEGER` column holding 1 for true and 0 for false.
    public static func boolean(
        _ column: String,
        name: String? = nil,
        version: Int,
        default defaultValue: Bool? = nil,
        _ derive: @escaping @Sendable (Payload) throws -> Bool?
    ) -> Processor {
        single(.integer(column, default: defaultValue.map { $0 ? 1 : 0 }), name: name, version: version) { payload in
            try derive(payload).map { DerivedValue.integer($0 ? 1 : 0) } ?? .null
        }
    }

    /// A processor that owns one `TEXT` column.
    public static func text(
        _ column: String,
        name: String? = nil,
        version: Int,
        default defaultValue: String? = nil,
        _ derive: @escaping @Sendable (Payload) throws -> String?
    ) -> Processor {
        single(.text(column, default: defaultValue), name: name, version: version) { payload in
            try derive(payload).map(DerivedValue.text) ?? .null
        }
    }

    /// A processor that owns one `BLOB` column.
    public static func blob(
        _ column: String,
        name: String? = nil,
        version: Int,
        _ derive: @escaping @Sendable (Payload) throws -> [UInt8]?
    ) -> Processor {
        single(.blob(column), name: name, version: version) { payload in
            try derive(payload).map(DerivedValue.blob) ?? .null
        }
    }

    private static func single(
        _ column: OutputColumn,
        name: String?,
        version: Int,
        derive: @escaping @Sendable (Payload) throws -> DerivedValue
    ) -> Processor {
        Processor(name: name ?? column.name, version: version, columns: [column]) { payload in
            [try derive(payload)]
        }
    }
}
