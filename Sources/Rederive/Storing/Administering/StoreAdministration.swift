/// What a store offers the people who run it, beyond deriving and reporting: undoing a run and
/// clearing derived state. Both SQLite and PostgreSQL provide it.
public protocol StoreAdministration: Sendable {
    /// Puts back the values and stamps that run `runID` replaced, in one transaction.
    ///
    /// A record is skipped, and reported with the reason, when its payload changed since the run
    /// derived it, when it was deleted, or when a later run changed it again (roll that run back first).
    /// Restored stamps carry the versions they had, so a processor whose version has moved on since is
    /// stale again for those records. Processors that read a restored processor's values become stale
    /// for its records, unless restored as well.
    ///
    /// A record that a later run derived again to the same values is restored; one that a later run
    /// changed again is skipped, naming the newest such run, to roll back first. What is kept, and
    /// when a rollback is refused, is decided by ``RollbackRules``; what is put back and why the rest
    /// is skipped, by ``RollbackPlan``: a store reads what the plan needs and writes what it decides.
    ///
    /// - Throws: ``RederiveError`` with code ``RederiveError/Code/unknownName`` when no such run is
    ///   recorded, and ``RederiveError/Code/invalidArgument`` when the run, or another, is in progress,
    ///   or when the run changed values of which nothing is kept now.
    func rollback(run runID: Int64, pipelines: [Pipeline]) async throws -> RollbackReport

    /// Clears a pipeline's derived state, for development before an app ships: stamps, failures and
    /// kept replaced values go, and every derived column goes back to its declared default, in one
    /// transaction. Payloads and records are never touched; the next run derives everything again.
    ///
    /// - Returns: The number of records whose state was cleared.
    /// - Throws: ``RederiveError`` with code ``RederiveError/Code/invalidArgument`` while a run is in progress.
    func reset(_ pipeline: Pipeline) async throws -> Int
}

/// What rolling back a run did.
public struct RollbackReport: Sendable, Hashable {
    /// One record and processor whose values and stamp were put back, or were not.
    public struct Entry: Sendable, Hashable {
        /// The pipeline of the record.
        public let pipeline: String
        /// The record's id in the pipeline's table.
        public let recordID: Int64
        /// The record's readable key, when the pipeline has a key column.
        public let key: String?
        /// The processor whose values and stamp were restored, or not.
        public let processor: String
        /// Why it was skipped; nil when it was restored.
        public let reason: String?

        /// An entry of a rollback report.
        public init(pipeline: String, recordID: Int64, key: String?, processor: String, reason: String?) {
            self.pipeline = pipeline
            self.recordID = recordID
            self.key = key
            self.processor = processor
            self.reason = reason
        }
    }

    /// What was put back, in record and processor order.
    public var restored: [Entry] = []
    /// What was left as it is, with the reason.
    public var skipped: [Entry] = []

    /// An empty report.
    public init() {}
}
