/// Accumulates a dry run's comparisons of derived and stored values for one pipeline.
struct ColumnTally {
    let pipeline: Pipeline
    /// How the store holds values, by which a value counts as changed.
    let rules: StorageRules
    /// Column offset in ``Pipeline/outputColumns`` of each processor's first column.
    private let offsets: [Int]
    private var columns: [ColumnChanges]
    private var differences: [[Double]]
    private var changes: [[ChangeKey: Int]]
    private let identities: [ColumnIdentity]

    private struct ChangeKey: Hashable {
        let from: DerivedValue?
        let to: DerivedValue
    }

    /// How many distinct changes a text or blob column reports.
    static let commonChangeCount = 5

    init(pipeline: Pipeline, rules: StorageRules) {
        self.pipeline = pipeline
        self.rules = rules
        var offsets: [Int] = []
        var columns: [ColumnChanges] = []
        for processor in pipeline.processors {
            offsets.append(columns.count)
            columns += processor.columns.map {
                ColumnChanges(pipeline: pipeline.name, processor: processor.name, column: $0.name, type: $0.type)
            }
        }
        self.offsets = offsets
        self.columns = columns
        identities = columns.map(\.identity)
        differences = Array(repeating: [], count: columns.count)
        changes = Array(repeating: [:], count: columns.count)
    }

    /// Compares one record's outcomes with what is stored, shows each comparison to `observe`, and
    /// returns the failures a run would record.
    mutating func add(_ result: RecordResult, stored: StoredRow?, observe: (ValueComparison) -> Void = { _ in }) -> [DryRunFailure] {
        var failures: [DryRunFailure] = []
        for (index, outcome) in result.outcomes {
            let processor = pipeline.processors[index]
            switch outcome {
            case .failed(let kind, let message):
                failures.append(DryRunFailure(
                    pipeline: pipeline.name, recordID: result.recordID, key: stored?.key,
                    processor: processor.name, kind: kind, message: message
                ))
            case .derived(let values):
                for (position, new) in values.enumerated() {
                    let column = offsets[index] + position
                    let old = stored?.values?[column]
                    let type = columns[column].type
                    columns[column].derived += 1
                    // The rule the commit and verify apply; a record without a row of values gets one, a change.
                    let unchanged = old.map { rules.isUnchanged($0, byStoring: new, in: type) } ?? false
                    observe(ValueComparison(
                        column: identities[column], recordID: result.recordID, key: stored?.key,
                        old: old, new: rules.stored(new, in: type), changed: !unchanged
                    ))
                    if unchanged { continue }
                    columns[column].changed += 1
                    if type == .integer || type == .real {
                        if let before = old?.number, let after = rules.stored(new, in: type).number {
                            differences[column].append(after - before)
                        }
                    } else {
                        changes[column][ChangeKey(from: old, to: new), default: 0] += 1
                    }
                }
            }
        }
        return failures
    }

    func summaries() -> [ColumnChanges] {
        columns.indices.map { column in
            var summary = columns[column]
            summary.differences = NumericSummary(differences[column])
            summary.commonChanges = changes[column]
                .sorted { ($0.value, $1.key.to.description) > ($1.value, $0.key.to.description) }
                .prefix(Self.commonChangeCount)
                .map { ValueChange(from: $0.key.from, to: $0.key.to, count: $0.value) }
            return summary
        }
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
