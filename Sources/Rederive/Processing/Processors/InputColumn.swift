/// A column of another processor of the same pipeline, read as a typed value by a processor that
/// derives from it.
///
/// A processor of one column offers it as ``Processor/real``, ``Processor/integer``,
/// ``Processor/boolean``, ``Processor/text`` or ``Processor/blob``, after the column's type; a processor
/// of several columns names the one to read, as in `wallMetrics.real("wall_length_m")`. `NULL` reads as nil.
///
/// ```swift
/// let roomType = Processor<Room>.text("room_type", version: 1, from: floorArea.real, objectCount.integer) { area, objects in
///     (area ?? 0) < 4 && objects == 0 ? "closet" : "room"
/// }
/// ```
///
/// Registration checks that the pipeline has the column with this type; a column read under another
/// type is an error of the registration, not of every record.
public struct InputColumn<Value: Sendable>: Sendable {
    /// Which column of which processor.
    public let reference: InputReference
    let read: @Sendable (DerivedValue) throws(InputValueError) -> Value
}

/// An input column's stored value that does not have the column's type: someone other than rederive
/// wrote it. The record fails for the processor that reads it.
public struct InputValueError: Error, Sendable, CustomStringConvertible {
    /// The column read.
    public let reference: InputReference
    /// The value found.
    public let value: DerivedValue

    /// A description naming the column, the value and the type expected.
    public var description: String {
        "input column \(reference.column) of processor \(reference.processor) holds \(value), not a \(reference.type.description) value"
    }
}

extension Processor {
    /// This processor's only column, read as a number; registration requires one `REAL` column.
    public var real: InputColumn<Double?> { real(columns.first?.name ?? "", only: true) }
    /// This processor's only column, read as an integer; registration requires one `INTEGER` column.
    public var integer: InputColumn<Int?> { integer(columns.first?.name ?? "", only: true) }
    /// This processor's only column, read as a boolean (any non-zero integer is true); registration
    /// requires one `INTEGER` column.
    public var boolean: InputColumn<Bool?> { boolean(columns.first?.name ?? "", only: true) }
    /// This processor's only column, read as text; registration requires one `TEXT` column.
    public var text: InputColumn<String?> { text(columns.first?.name ?? "", only: true) }
    /// This processor's only column, read as bytes; registration requires one `BLOB` column.
    public var blob: InputColumn<[UInt8]?> { blob(columns.first?.name ?? "", only: true) }

    /// The `REAL` column `column` of this processor, read as a number.
    public func real(_ column: String) -> InputColumn<Double?> { real(column, only: false) }
    /// The `INTEGER` column `column` of this processor, read as an integer.
    public func integer(_ column: String) -> InputColumn<Int?> { integer(column, only: false) }
    /// The `INTEGER` column `column` of this processor, read as a boolean.
    public func boolean(_ column: String) -> InputColumn<Bool?> { boolean(column, only: false) }
    /// The `TEXT` column `column` of this processor, read as text.
    public func text(_ column: String) -> InputColumn<String?> { text(column, only: false) }
    /// The `BLOB` column `column` of this processor, read as bytes.
    public func blob(_ column: String) -> InputColumn<[UInt8]?> { blob(column, only: false) }

    private func real(_ column: String, only: Bool) -> InputColumn<Double?> {
        input(column, .real, only: only) { value throws(InputValueError) in
            switch value {
            case .real(let number): return number
            case .integer(let number): return Double(number)
            default: return nil
            }
        }
    }

    private func integer(_ column: String, only: Bool) -> InputColumn<Int?> {
        input(column, .integer, only: only) { value throws(InputValueError) in
            if case .integer(let number) = value { return Int(number) }
            return nil
        }
    }

    private func boolean(_ column: String, only: Bool) -> InputColumn<Bool?> {
        input(column, .integer, only: only) { value throws(InputValueError) in
            if case .integer(let number) = value { return number != 0 }
            return nil
        }
    }

    private func text(_ column: String, only: Bool) -> InputColumn<String?> {
        input(column, .text, only: only) { value throws(InputValueError) in
            if case .text(let text) = value { return text }
            return nil
        }
    }

    private func blob(_ column: String, only: Bool) -> InputColumn<[UInt8]?> {
        input(column, .blob, only: only) { value throws(InputValueError) in
            if case .blob(let bytes) = value { return bytes }
            return nil
        }
    }

    /// An input column whose `convert` returns nil for `NULL` and for values of another type; the
    /// latter are reported as an ``InputValueError``.
    private func input<Value>(
        _ column: String, _ type: ColumnType, only: Bool, convert: @escaping @Sendable (DerivedValue) throws(InputValueError) -> Value?
    ) -> InputColumn<Value?> {
        // "Its only column" of a processor with several names none: registration then asks for the name.
        let index = only && columns.count != 1 ? nil : columns.firstIndex { $0.name == column }
        let reference = InputReference(processor: name, column: column, index: index, type: type)
        return InputColumn(reference: reference) { value throws(InputValueError) in
            if value == .null { return nil }
            guard let converted = try convert(value) else { throw InputValueError(reference: reference, value: value) }
            return converted
        }
    }
}
