/// What a store read, inside a rollback's transaction, of one entry the run kept: a record and a
/// processor whose values the run replaced, what they held before, and what the record holds now.
/// All a ``RollbackPlan`` needs to decide whether to put the entry back.
public struct StoredRollbackEntry: Sendable, Hashable {
    /// The record's integer id in its pipeline's table.
    public var recordID: Int64
    /// The record's readable key, when the pipeline has a key column and the record is still there.
    public var key: String?
    /// The name of the processor whose values the run replaced.
    public var processor: String
    /// The generation of the payload the run's last write of the processor's values was derived
    /// from, as the store kept it with the replaced values.
    public var derivedGeneration: Int64
    /// The record's generation now; nil once the record was deleted.
    public var currentGeneration: Int64?
    /// Whether the record has a stamp of the processor now.
    public var hasStamp: Bool
    /// The newest run after this one that keeps values it replaced of the same record and
    /// processor, if any: a run that changed them again.
    public var newestLaterChange: Int64?
    /// The values the processor's columns held before the run's first write, by column name; a
    /// column without one held its declared default.
    public var values: [String: DerivedValue]
    /// The stamp the processor had before the run's first write; nil when it had none.
    public var stamp: KeptStamp?

    /// An entry as a store read it.
    public init(
        recordID: Int64, key: String?, processor: String, derivedGeneration: Int64, currentGeneration: Int64?,
        hasStamp: Bool, newestLaterChange: Int64?, values: [String: DerivedValue], stamp: KeptStamp?
    ) {
        self.recordID = recordID
        self.key = key
        self.processor = processor
        self.derivedGeneration = derivedGeneration
        self.currentGeneration = currentGeneration
        self.hasStamp = hasStamp
        self.newestLaterChange = newestLaterChange
        self.values = values
        self.stamp = stamp
    }
}

/// What a rollback needs to know of a stamp a run replaced; the store keeps the rest of it (version,
/// digests, run, time) and puts it back as it was.
public struct KeptStamp: Sendable, Hashable {
    /// Whether the stamp was current when the run replaced it.
    public var current: Bool
    /// The generation of the payload its values were derived from.
    public var generation: Int64

    /// A kept stamp.
    public init(current: Bool, generation: Int64) {
        self.current = current
        self.generation = generation
    }
}
