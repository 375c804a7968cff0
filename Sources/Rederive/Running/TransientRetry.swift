import Logging

/// Tries a claim or a commit again while the store says it failed for a transient reason
/// (``RederiveError/isTransient``: a lost connection, a serialization failure, a deadlock, a lock
/// not granted in time, SQLite's write lock still held past the busy timeout), after waits that double
/// from 50 ms up to 5 s, each drawn at random between half and all of that, so that workers that failed
/// together do not come back in step.
///
/// Such an error is the database's moment, not the records': they are never made failures of it. The
/// store rolled the transaction back, so trying again stores nothing twice; a commit whose outcome is
/// unknown (its connection was lost after COMMIT was sent) is not transient but loses its lease. After
/// `limit` of failures in a row the error is thrown and ends the run, as before retries; a run asked
/// to stop tries for at most 5 s more, so that it still commits what it derived but ends soon.
///
/// An outage (``RederiveError/isOutage``: the database out of reach) is waited for up to
/// `outageLimit` instead, counted from the first failure in a row: when the database is back the
/// operation runs again, with a new lease if the old one lapsed meanwhile
/// (``LeaseKeeper/withCurrentLease(pipeline:_:)``), and the run carries on. This is the one loop that
/// waits for the database.
package struct TransientRetry: Sendable {
    /// Told of each retry, with the operation (`claim` or `commit`) and the error.
    package typealias Observer = @Sendable (_ operation: String, _ error: RederiveError) -> Void

    /// How long an operation is tried again after its first failure in a row.
    let limit: Duration
    /// How long an outage is waited for, from its first failure.
    let outageLimit: Duration
    let logger: Logger
    /// Told of each retry.
    let retried: Observer

    /// The longest a cancelled run goes on trying.
    static let cancelledLimit: Duration = .seconds(5)

    /// How long an outage is waited for unless told otherwise: long enough for a server restart or a
    /// network repair in the middle of a batch job.
    package static let defaultOutageLimit: Duration = .seconds(15 * 60)

    /// Retries after `limit` of failures at most (`outageLimit` while the database is out of reach),
    /// telling `retried` of each and logging it as a warning.
    package init(limit: Duration, outageLimit: Duration = TransientRetry.defaultOutageLimit, logger: Logger, retried: @escaping Observer) {
        self.limit = limit
        self.outageLimit = max(limit, outageLimit)
        self.logger = logger
        self.retried = retried
    }

    /// Runs `body` until it succeeds, throws an error that is not transient, or has failed for `limit`.
    package func run<T: Sendable>(_ operation: String, _ body: () async throws -> T) async throws -> T {
        var backoff = Backoff(initial: .milliseconds(50), maximum: .seconds(5))
        let clock = ContinuousClock()
        var since: ContinuousClock.Instant?
        while true {
            do {
                return try await body()
            } catch let error as RederiveError where error.isTransient {
                let first = since ?? clock.now
                since = first
                let bound = error.isOutage ? outageLimit : limit
                let allowed = Task.isCancelled ? min(bound, Self.cancelledLimit) : bound
                let wait = backoff.next()
                guard clock.now + wait < first + allowed else { throw error }
                retried(operation, error)
                // An outage is told once by the store, when it begins and when it ends, not per attempt.
                logger.log(level: error.isOutage ? .debug : .warning, "trying a \(operation) again after a transient error", metadata: [
                    "operation": "\(operation)", "error": "\(error)", "waitMilliseconds": "\(Int(wait.secondsValue * 1000))",
                ])
                await sleepEvenIfCancelled(for: wait)
            }
        }
    }
}
