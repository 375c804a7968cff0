/// What a commit made of one result.
public enum CommitDisposition: Sendable, Hashable {
    /// Not stored: the record's payload changed since it was read, the record was deleted, or
    /// another live lease holds it. It stays stale.
    case skipped
    /// Stored with the failure of at least one processor; values that other processors derived are
    /// stored too.
    case failed
    /// Stored, and at least one stored value changed.
    case changed
    /// Stored, and every value was already held: only the stamps were renewed.
    case unchanged
}

/// One result's record and what the commit made of it.
public struct RecordDisposition: Sendable, Hashable {
    /// The record's integer id in its pipeline's table.
    public let recordID: Int64
    /// What the commit made of the result.
    public let disposition: CommitDisposition
    /// The processors, by index, that derived values stored for the record; empty when skipped.
    public let derived: [Int]
    /// The processors, by index, whose failure was stored for the record; empty when skipped.
    public let failed: [Int]
    /// The processors among ``derived`` whose stored values the commit changed; the others'
    /// values were already held.
    public let changed: [Int]

    /// A result the commit did not store.
    static func skipped(_ recordID: Int64) -> RecordDisposition {
        RecordDisposition(recordID: recordID, disposition: .skipped, derived: [], failed: [], changed: [])
    }
}

extension RunCounts {
    /// The counts of commits whose results ended as `dispositions`.
    public init(_ dispositions: some Sequence<RecordDisposition>) {
        self.init()
        for record in dispositions {
            switch record.disposition {
            case .skipped: skipped += 1
            case .failed: count(failed: true, changed: false)
            case .changed: count(failed: false, changed: true)
            case .unchanged: count(failed: false, changed: false)
            }
        }
    }
}
