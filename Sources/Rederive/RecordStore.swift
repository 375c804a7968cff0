/// Where records, their payloads, derived values, stamps, failures and runs are kept.
///
/// The runner sees the database only through this interface: it asks for pending records in
/// key order and hands back results to commit. A store decides how staleness is tracked and
/// how batches are claimed, so a store shared by many runners (claiming batches in a server
/// database) fits the same shape as the single-file SQLite store.
public protocol RecordStore: Sendable {
    /// Makes the database ready for a pipeline: bookkeeping, missing output columns (added with their
    /// defaults), change tracking. Cheap when nothing is missing.
    func prepare(_ pipeline: Pipeline) async throws

    /// Records a new run and returns its id.
    func startRun(processors: [ProcessorVersion]) async throws -> Int64

    /// Records how a run ended.
    func finishRun(_ runID: Int64, status: RunStatus, counts: RunCounts) async throws

    /// How many records the plan would derive.
    func pendingCount(_ plan: RunPlan) async throws -> Int

    /// Up to `limit` pending records with ids greater than `cursor`, in id order, with their payloads.
    /// The batch ends early once its payloads hold `byteLimit` bytes; it always holds at least one record.
    func pendingRecords(_ plan: RunPlan, after cursor: Int64?, limit: Int, byteLimit: Int) async throws -> [PendingRecord]

    /// Stores derived values, stamps and failures in one transaction. A result whose record's payload
    /// changed since it was read, or that was deleted, is skipped and the record stays stale.
    func commit(_ results: [RecordResult], plan: RunPlan, runID: Int64) async throws -> RunCounts

    /// Per-processor counts of up-to-date, stale and failed records.
    func status(of pipeline: Pipeline) async throws -> [ProcessorStatus]

    /// Current failures, oldest record first.
    func failures(of pipeline: Pipeline, filter: FailureFilter) async throws -> [FailureReport]

    /// Marks records stale for the given processors (all of the pipeline's when nil), for all records
    /// or those with the given keys. Returns how many records were marked.
    func invalidate(_ pipeline: Pipeline, processors: [String]?, keys: [String]?) async throws -> Int

    /// Recorded runs, newest first.
    func runs(limit: Int?) async throws -> [RunRecord]
}
