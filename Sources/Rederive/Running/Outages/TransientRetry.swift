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
/// `limit` of failures in a row (the run's ``Runner/Configuration-swift.struct/outageLimit``) the
/// run ends with ``RederiveError/Code-swift.enum/outage``; a run asked to stop tries for at most 5 s
/// more, so that it still commits what it derived but ends soon, and then throws the error itself.
///
/// A streak of failures is logged once, as a warning, when it begins; each retry only at debug. A
/// store that logs its outages itself (PostgreSQL's) has it logged there, and here only at debug, as
/// is any outage (``RederiveError/isOutage``). When the database is back the operation runs again,
/// with a new lease if the old one lapsed meanwhile (``LeaseKeeper/withCurrentLease(pipeline:_:)``),
/// and the run carries on: this is the one loop that waits for the database.
package struct TransientRetry: Sendable {
    /// Told of each retry, with the operation (`claim` or `commit`) and the error.
    package typealias Observer = @Sendable (_ operation: String, _ error: RederiveError) -> Void

    /// How long an operation is tried again after its first failure in a row; nil for ever.
    let limit: Duration?
    let logger: Logger
    /// Whether the store logs outages itself: a streak's first retry is then logged at debug too.
    let storeLogsOutages: Bool
    /// Told of each retry.
    let retried: Observer

    /// The longest a cancelled run goes on trying.
    static let cancelledLimit: Duration = .seconds(5)

    /// Retries after `limit` of failures at most (nil: without end), telling `retried` of each.
    package init(limit: Duration?, logger: Logger, storeLogsOutages: Bool = false, retried: @escaping Observer) {
        self.limit = limit
        self.logger = logger
        self.storeLogsOutages = storeLogsOutages
        self.retried = retried
    }

    /// Runs `body` until it succeeds, throws an error that is not transient, or has failed for `limit`.
    package func run<T: Sendable>(_ operation: String, _ body: () async throws -> T) async throws -> T {
        var backoff = Backoff(initial: .milliseconds(50), maximum: .seconds(5))
        let clock = ContinuousClock()
        var since: ContinuousClock.Instant?
        // Retries of this streak so far: only the first may be logged above debug.
        var retries = 0
        while true {
            do {
                return try await body()
            } catch let error as RederiveError where error.isTransient {
                let first = since ?? clock.now
                since = first
                let wait = backoff.next()
                if Task.isCancelled {
                    guard clock.now + wait < first + min(limit ?? Self.cancelledLimit, Self.cancelledLimit) else { throw error }
                } else if let limit, clock.now + wait >= first + limit {
                    throw OutageLimit.exceeded(limit, lastError: error)
                }
                retried(operation, error)
                logger.log(level: retries == 0 && !storeLogsOutages && !error.isOutage ? .warning : .debug, "trying a \(operation) again after a transient error", metadata: [
                    "operation": "\(operation)", "error": "\(error)", "waitMilliseconds": "\(Int(wait.secondsValue * 1000))",
                ])
                retries += 1
                await sleepEvenIfCancelled(for: wait)
            }
        }
    }
}
