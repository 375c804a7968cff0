/// The rows one step of a commit writes, as a ``CommitPlan`` decided them. Within one step a record
/// appears at most once in each list, so a store may write each list in a few batched statements in
/// any order, except that replaced stamps are kept before the new ones are written.
public struct CommitWrites: Sendable {
    /// Records whose derived values change: their new values, grouped by the processors that derived
    /// them.
    public internal(set) var values: [ValueWrite] = []
    /// Per record whose values change, what its changing processors held before, for rollback. Where
    /// the run kept a record and processor already, a store keeps what it holds (what the run's first
    /// write replaced) and takes this write's generation: see ``RollbackPlan``.
    public internal(set) var replaced: [ReplacedWrite] = []
    /// Stamps of the processors that derived values, changed or not.
    public internal(set) var stamps: [StampWrite] = []
    /// Failures to record; each also marks the processor's stamp of the record not current.
    public internal(set) var failures: [FailureWrite] = []
    /// Projections of the payloads stored results were derived from, when the pipeline keeps them.
    public internal(set) var projections: [ProjectionWrite] = []
    /// Records stored by this step, to mark as committed by the run.
    public internal(set) var committed: [Int64] = []

    /// Whether the step writes nothing.
    public var isEmpty: Bool { committed.isEmpty }

    /// The failures to clear: each stamped processor's, for its record.
    public var clearedFailures: [(recordID: Int64, processor: Int)] {
        stamps.flatMap { stamp in stamp.processors.map { (stamp.recordID, $0) } }
    }

    /// ``values`` grouped by the processors that derived them, in the order each group first
    /// appears: one statement per group writes the same columns for every record of it.
    public var valuesByProcessors: [(processors: [Int], rows: [ValueWrite])] {
        var order: [[Int]] = []
        var groups: [[Int]: [ValueWrite]] = [:]
        for write in values {
            if groups[write.processors] == nil { order.append(write.processors) }
            groups[write.processors, default: []].append(write)
        }
        return order.map { ($0, groups[$0] ?? []) }
    }
}
