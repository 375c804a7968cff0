/// A store that can show what is stored now, so that derivation can be previewed without writing.
public protocol StoredValueReading: Sendable {
    /// How this store holds the values it is given, by which stored and derived values are compared.
    var storageRules: StorageRules { get }

    /// Whether the database lacks something the pipeline needs (tables, columns, triggers), which only
    /// ``RecordStore/prepare(_:)`` can add.
    func needsPreparation(_ pipeline: Pipeline) async throws -> Bool

    /// The records' keys and the values stored in every output column of the pipeline, in
    /// ``Pipeline/outputColumns`` order. A record without a row of derived values has `values` nil.
    func storedRows(of pipeline: Pipeline, recordIDs: [Int64]) async throws -> [Int64: StoredRow]
}

/// What is stored for one record: its readable key and its derived values, if any.
public struct StoredRow: Sendable, Hashable {
    /// The record's readable key, when its pipeline has a key column.
    public let key: String?
    /// The values of every output column, in ``Pipeline/outputColumns`` order; nil without a row of derived values.
    public let values: [DerivedValue]?

    /// What a store holds for one record.
    public init(key: String?, values: [DerivedValue]?) {
        self.key = key
        self.values = values
    }
}
