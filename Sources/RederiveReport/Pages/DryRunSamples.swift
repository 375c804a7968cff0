import Rederive

/// What a dry-run report needs beyond the dry run's own summary, gathered from its comparisons
/// (`DryRun/run(observing:)`) in bounded memory whatever the number of records:
/// - per numeric column, a sample of old and new values of the same records, and a sample of the
///   differences of changed values;
/// - the records whose numbers change most, with all their changed values.
public struct DryRunSamples: Sendable {
    /// Numeric values of one column, sampled.
    public struct NumericColumn: Sendable {
        /// Old and new values of the same sampled records; old is nil when nothing was stored.
        public var values: Reservoir<Pair>
        /// New minus old, for changed values that were numbers before and after.
        public var differences: Reservoir<Double>
    }

    /// An old and a new value of one record.
    public struct Pair: Sendable, Hashable {
        /// The number stored now, nil when none (no row, or NULL).
        public let old: Double?
        /// The number a run would store, nil for NULL.
        public let new: Double?
    }

    /// One record that would change, with every value of it that would change.
    public struct ChangedRecord: Sendable {
        /// The pipeline of the record.
        public let pipeline: String
        /// The record's integer id.
        public let recordID: Int64
        /// The record's readable key.
        public let key: String?
        /// The changed values, in column order.
        public let changes: [ValueComparison]
        /// The largest relative change of a number among them: `|new − old| / |old|`, infinite from 0.
        public let score: Double
    }

    /// Sampled values per numeric column.
    public private(set) var numeric: [ColumnIdentity: NumericColumn] = [:]
    /// The records that change most, most first, at most ``topCount``.
    public private(set) var topRecords: [ChangedRecord] = []
    /// How many values each sample keeps.
    public let sampleSize: Int
    /// How many records ``topRecords`` keeps.
    public let topCount: Int
    private let seed: UInt64
    private var current: (pipeline: String, recordID: Int64, key: String?, changes: [ValueComparison])?

    /// Samples of `sampleSize` values per column and the `topCount` records that change most.
    public init(sampleSize: Int = 10_000, topCount: Int = 20, seed: UInt64 = 0x5EED) {
        precondition(sampleSize >= 1 && topCount >= 0)
        self.sampleSize = sampleSize
        self.topCount = topCount
        self.seed = seed
    }

    /// Takes one comparison; a dry run gives them record by record.
    public mutating func add(_ comparison: ValueComparison) {
        let identity = comparison.column
        if current?.recordID != comparison.recordID || current?.pipeline != identity.pipeline {
            finishRecord()
            current = (identity.pipeline, comparison.recordID, comparison.key, [])
        }
        if comparison.changed {
            current?.changes.append(comparison)
        }
        guard identity.type == .integer || identity.type == .real else { return }
        let old = comparison.old?.number
        let new = comparison.new.number
        if numeric[identity] == nil {
            let columnSeed = seed ^ UInt64(truncatingIfNeeded: numeric.count &* 0x9E37_79B9)
            numeric[identity] = NumericColumn(
                values: Reservoir(capacity: sampleSize, seed: columnSeed),
                differences: Reservoir(capacity: sampleSize, seed: ~columnSeed)
            )
        }
        numeric[identity]?.values.add(Pair(old: old, new: new))
        if comparison.changed, let old, let new {
            numeric[identity]?.differences.add(new - old)
        }
    }

    /// Ends the comparisons: ranks the last record. Call once the dry run returned.
    public mutating func finish() {
        finishRecord()
    }

    private mutating func finishRecord() {
        guard let record = current, !record.changes.isEmpty, topCount > 0 else {
            current = nil
            return
        }
        current = nil
        var score = 0.0
        for change in record.changes {
            guard let old = change.old?.number, let new = change.new.number else { continue }
            score = max(score, old == 0 ? .infinity : abs(new - old) / abs(old))
        }
        guard score > 0 else { return }
        if topRecords.count == topCount, let last = topRecords.last, last.score >= score { return }
        let entry = ChangedRecord(pipeline: record.pipeline, recordID: record.recordID, key: record.key, changes: record.changes, score: score)
        // Most first; among equal scores, the earlier record first.
        let index = topRecords.firstIndex { $0.score < score } ?? topRecords.endIndex
        topRecords.insert(entry, at: index)
        if topRecords.count > topCount { topRecords.removeLast() }
    }
}

extension DerivedValue {
    /// The value as a number, for integer and real values.
    var number: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .real(let value): value
        default: nil
        }
    }
}
