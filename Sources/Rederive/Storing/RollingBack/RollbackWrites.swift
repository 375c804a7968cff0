/// One record and processor a rollback puts back, as a ``RollbackPlan`` decided it.
public struct RestoredEntry: Sendable, Hashable {
    /// The record's integer id in its pipeline's table.
    public let recordID: Int64
    /// The processor's index in the pipeline.
    public let processor: Int
    /// The values to write, one per column the processor declares now, in order: the kept ones, and
    /// the declared default of a column without one.
    public let values: [DerivedValue]
    /// What becomes of the processor's stamp of the record.
    public let stamp: RestoredStamp
}

/// What a rollback does with the stamp of a restored entry.
public enum RestoredStamp: Sendable, Hashable {
    /// The processor had no stamp of the record before the run: its stamp goes.
    case removed
    /// The stamp the run replaced goes back as the store kept it, current or not as given.
    case kept(current: Bool)
}

/// A processor of a record that a rollback makes stale: it read values now replaced.
public struct StaleEntry: Sendable, Hashable {
    /// The record's integer id in its pipeline's table.
    public let recordID: Int64
    /// The processor's index in the pipeline.
    public let processor: Int
}
