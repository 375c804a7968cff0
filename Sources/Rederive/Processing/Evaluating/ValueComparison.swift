/// One value a dry run derived, beside the value stored now: what a report charts and ranks.
public struct ValueComparison: Sendable {
    /// The column, as it appears in ``DryRunReport/columns``.
    public let column: ColumnIdentity
    /// The record's integer id in its pipeline's table.
    public let recordID: Int64
    /// The record's readable key, when its pipeline has a key column.
    public let key: String?
    /// The value stored now; nil when the record has no row of derived values yet.
    public let old: DerivedValue?
    /// The value a run would store, as the column stores it.
    public let new: DerivedValue
    /// Whether a run would replace the stored value, by the rule commits and `verify` apply.
    public let changed: Bool
}

/// Which output column of which processor and pipeline a value belongs to.
public struct ColumnIdentity: Sendable, Hashable {
    /// The pipeline the column belongs to.
    public let pipeline: String
    /// The processor that owns the column.
    public let processor: String
    /// The column's name.
    public let column: String
    /// The column's type.
    public let type: ColumnType

    /// The column `column` of `processor` in `pipeline`.
    public init(pipeline: String, processor: String, column: String, type: ColumnType) {
        self.pipeline = pipeline
        self.processor = processor
        self.column = column
        self.type = type
    }
}

extension ColumnChanges {
    /// The column these changes are about.
    public var identity: ColumnIdentity {
        ColumnIdentity(pipeline: pipeline, processor: processor, column: column, type: type)
    }
}
