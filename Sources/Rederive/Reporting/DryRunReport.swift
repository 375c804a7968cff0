/// What a ``DryRun`` found: per column, what would change, and the failures a run would record.
public struct DryRunReport: Sendable, Hashable {
    /// Records pending across the pipelines.
    public var pending = 0
    /// Records derived for the preview (all pending, or the sample).
    public var examined = 0
    /// Per output column of the processors that ran, in pipeline and column order: what would change.
    public var columns: [ColumnChanges] = []
    /// The failures a run would record, in record order.
    public var failures: [DryRunFailure] = []
    /// Per dependent processor that would run in records where it is not stale itself, because an
    /// input's values would change: the cascade of the change, in pipeline and derivation order.
    public var cascades: [Cascade] = []

    /// An empty report, which a ``DryRun`` fills.
    public init() {}

    /// Records of ``examined`` that at least one processor would fail: a run would leave them
    /// ``RecordState/failed`` for that processor instead of up to date.
    public var failingRecords: Int {
        Set(failures.map { "\($0.pipeline)\u{0}\($0.recordID)" }).count
    }

    /// How many records a dependent processor would derive again only because its inputs change.
    public struct Cascade: Sendable, Hashable {
        /// The pipeline the processor belongs to.
        public let pipeline: String
        /// The dependent processor.
        public let processor: String
        /// The records it would derive again (or fail for, when an input fails).
        public var records: Int
    }
}

/// How one output column would change.
public struct ColumnChanges: Sendable, Hashable {
    /// The pipeline the column belongs to.
    public let pipeline: String
    /// The processor that owns the column.
    public let processor: String
    /// The column's name.
    public let column: String
    /// The column's type.
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
    /// How many differences were summarized.
    public let count: Int
    /// The smallest difference.
    public let minimum: Double
    /// The median difference: the middle one, or the mean of the two middle ones.
    public let median: Double
    /// The largest difference.
    public let maximum: Double

    /// A summary of `count` differences.
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
    /// The stored value, or nil when the record has no derived values yet.
    public let from: DerivedValue?
    /// The value a run would store.
    public let to: DerivedValue
    /// How many records this change would happen to.
    public let count: Int

    /// A change from `from` to `to`, seen in `count` records.
    public init(from: DerivedValue?, to: DerivedValue, count: Int) {
        self.from = from
        self.to = to
        self.count = count
    }
}

/// A failure that a run would record.
public struct DryRunFailure: Sendable, Hashable {
    /// The pipeline of the record.
    public let pipeline: String
    /// The record's integer id.
    public let recordID: Int64
    /// The record's readable key, when its pipeline has a key column.
    public let key: String?
    /// The processor that would fail.
    public let processor: String
    /// Whether the payload would not inflate or decode, or the processor would fail.
    public let kind: FailureKind
    /// What is wrong, in one line written for a person.
    public let message: String
}
