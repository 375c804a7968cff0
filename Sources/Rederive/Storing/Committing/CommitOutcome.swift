/// What one commit did: each result's ``RecordDisposition``, in batch order, and their counts.
///
/// A store returns the dispositions of the batch's ``CommitPlan`` once its writes are durable, so
/// that every count and metric taken from a commit is exact, per record and per processor.
public struct CommitOutcome: Sendable, Hashable {
    /// Per result, in batch order, what the commit made of it.
    public let records: [RecordDisposition]

    /// The commit's counts, taken from ``records``.
    public var counts: RunCounts { RunCounts(records) }

    /// The outcome of a commit whose results ended as `records`.
    public init(_ records: [RecordDisposition]) {
        self.records = records
    }

    /// The outcome of a commit of no results.
    public static let empty = CommitOutcome([])
}

extension CommitPlan {
    /// What the commit does once its steps are written.
    public var outcome: CommitOutcome { CommitOutcome(records) }
}
