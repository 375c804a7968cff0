/// The values of a record's input columns, as a processor that derives from other processors reads them.
///
/// ```swift
/// let area = try inputs[floorArea.real]          // Double?
/// let length = try inputs[wallMetrics.real("wall_length_m")]
/// ```
///
/// Reading a column that the processor did not declare as an input, or whose stored value has another
/// type, throws: the record fails for the reading processor.
public struct InputValues: Sendable {
    let values: [String: [DerivedValue]]

    /// No values: what a processor that reads no inputs is given.
    public init() {
        values = [:]
    }

    /// The values of the named processors, each in its columns' order: for calling
    /// ``Processor/derive(_:inputs:)`` directly, in tests.
    public init(_ values: [String: [DerivedValue]]) {
        self.values = values
    }

    /// The value of one input column; nil for `NULL`.
    public subscript<Value>(_ column: InputColumn<Value>) -> Value {
        get throws {
            let reference = column.reference
            guard let row = values[reference.processor], let index = reference.index, index < row.count else {
                throw RederiveError(
                    .invalidRegistration,
                    "column \(reference.column) of processor \(reference.processor) is read but not declared as an input"
                )
            }
            return try column.read(row[index])
        }
    }
}
