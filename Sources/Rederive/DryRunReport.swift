/// What a ``DryRun`` found: per column, what would change, and the failures a run would record.
public struct DryRunReport: Sendable, Hashable {
    /// Records pending across the pipelines.
    public var pending = 0
    /// Records derived for the preview (all pending, or the sample).
    public var examined = 0
    public var columns: [ColumnChanges] = []
    public var failures: [DryRunFailure] = []

    public init() {}
}

/// How one output column would change.
public struct ColumnChanges: Sendable, Hashable {
    public let pipeline: String
    public let processor: String
    public let column: String
    public let type: ColumnType
    /// Records whose value for this column was derived.
    public var derived = 0
    /// Records whose stored value would be replaced by a different one.
    public var changed = 0
    /// For numeric columns, the differences (new minus old) of changed values that were numbers before and after.
    public var differences: NumericSummary?
    /// For other columns, the most frequent changes, most frequent first.
    public var commonChanges: [ValueChange] = []
}

/// Minimum, median and maximum of some differences.
public struct NumericSummary: Sendable, Hashable {
    public let count: Int
    public let minimum: Double
    public let median: Double
    public let maximum: Double

    public init(count: Int, minimum: Double, median: Double, maximum: Double) {
        self.count = count
        self.minimum = minimum
        self.median = median
        self.maximum = maximum
    }

    init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        count = sorted.count
        minimum = sorted[0]
        maximum = sorted[sorted.count - 1]
        let middle = sorted.count / 2
        median = sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }
}

/// One distinct change of a value and how many records it would happen to. `from` is nil for a record
/// that has no derived values yet.
public struct ValueChange: Sendable, Hashable {
    public let from: DerivedValue?
    public let to: DerivedValue
    public let count: Int

    public init(from: DerivedValue?, to: DerivedValue, count: Int) {
        self.from = from
        self.to = to
        self.count = count
    }
}

/// A failure that a run would record.
public struct DryRunFailure: Sendable, Hashable {
    public let pipeline: String
    public let recordID: Int64
    public let key: String?
    public let processor: String
    public let kind: FailureKind
    public let message: String
}
