/// A record a worker has been deriving for a while.
public struct InFlightRecord: Sendable, Hashable {
    /// The record's id in its pipeline's table.
    public let recordID: Int64
    /// The worker deriving it, from 0.
    public let worker: Int
    /// How long the worker has been deriving it.
    public let elapsed: Duration

    /// Describes a record in progress.
    public init(recordID: Int64, worker: Int, elapsed: Duration) {
        self.recordID = recordID
        self.worker = worker
        self.elapsed = elapsed
    }
}
