import Foundation

/// What reports and administration need of a store, apart from what a runner needs (``RecordStore``):
/// counts, failures, invalidation, recorded runs and the workers deriving now.
public protocol StoreReporting: Sendable {
    /// Per-processor counts of up-to-date, stale and failed records.
    func status(of pipeline: Pipeline) async throws -> [ProcessorStatus]

    /// Current failures, oldest record first.
    func failures(of pipeline: Pipeline, filter: FailureFilter) async throws -> [RecordFailure]

    /// Marks records stale for the given processors (all of the pipeline's when nil), for all records
    /// or those with the given keys. Returns how many records were marked.
    func invalidate(_ pipeline: Pipeline, processors: [String]?, keys: [String]?) async throws -> Int

    /// Recorded runs, newest first.
    func runs(limit: Int?) async throws -> [RunHistoryEntry]

    /// The processes holding a lease on the store now, oldest first: what `rederive status` lists, and
    /// what `run --workers-only` joins. A store that shows none returns an empty list, and says so.
    func liveWorkers() async throws -> [WorkerStatus]
}

/// One process deriving a store now, as `rederive status` shows it.
public struct WorkerStatus: Sendable, Hashable, Codable {
    /// The process.
    public let worker: WorkerIdentity
    /// Records it holds claimed and has not committed yet.
    public let claimed: Int
    /// Records it has committed under this lease.
    public let done: Int
    /// When it last renewed its lease.
    public let lastHeartbeat: Date
    /// When its lease expires unless renewed.
    public let expiresAt: Date

    /// Describes a worker as a store reads it.
    public init(worker: WorkerIdentity, claimed: Int, done: Int, lastHeartbeat: Date, expiresAt: Date) {
        self.worker = worker
        self.claimed = claimed
        self.done = done
        self.lastHeartbeat = lastHeartbeat
        self.expiresAt = expiresAt
    }
}
