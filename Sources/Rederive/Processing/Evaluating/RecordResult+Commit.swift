extension RecordResult {
    /// What a store writes for this result: the processors that derived, in outcome order, with their
    /// values in one row in that order, and the processors that failed, with why.
    public var committable: (derived: [Int], values: [DerivedValue], failures: [(processor: Int, kind: FailureKind, message: String)]) {
        var derived: [Int] = []
        var values: [DerivedValue] = []
        var failures: [(processor: Int, kind: FailureKind, message: String)] = []
        for (index, outcome) in outcomes {
            switch outcome {
            case .derived(let row):
                derived.append(index)
                values += row
            case .failed(let kind, let message):
                failures.append((index, kind, message))
            }
        }
        return (derived, values, failures)
    }
}

extension RunCounts {
    /// Counts one committed record the way every store does: failed when any processor failed, else
    /// changed when a stored value changed, else unchanged.
    public mutating func count(failed: Bool, changed: Bool) {
        if failed {
            self.failed += 1
        } else if changed {
            self.changed += 1
        } else {
            unchanged += 1
        }
    }
}
