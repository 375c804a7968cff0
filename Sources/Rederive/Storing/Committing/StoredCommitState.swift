/// What a store read of one record, inside a commit's transaction, before the commit writes
/// anything: all a ``CommitPlan`` needs to decide the record's fate. A record no longer in its
/// table has no state.
public struct StoredCommitState: Sendable, Hashable {
    /// The generation of the record's payload now.
    public var generation: Int64
    /// Whether another live lease holds the record, where the store keeps claims; such a record is
    /// skipped.
    public var heldByAnother: Bool
    /// Per processor index, the values its columns hold now, for the processors of
    /// ``CommitBatch/derivedProcessors`` at least; nil when the record has no row of derived values.
    public var values: [Int: [DerivedValue]]?

    /// The state of a record that is there.
    public init(generation: Int64, heldByAnother: Bool = false, values: [Int: [DerivedValue]]?) {
        self.generation = generation
        self.heldByAnother = heldByAnother
        self.values = values
    }
}
