import Logging
import Rederive
import Synchronization

/// Logs an outage of the database once when it starts (a warning) and once when it ends (how long it
/// lasted), however many attempts fail in between, unless the store logs its outages itself; counts
/// each retry in the metrics and keeps the health up to date either way.
final class OutageLog: Sendable {
    private struct Outage {
        let since: ContinuousClock.Instant
        let operation: String
    }

    private let logger: Logger
    private let metrics: WatchMetrics
    private let health: WatchHealth
    /// Whether this log writes the outage's two lines: not when the store writes them.
    private let logsOutages: Bool
    private let outage = Mutex<Outage?>(nil)
    /// How long an outage is waited out; nil for ever.
    private let limit: Duration?

    init(logger: Logger, metrics: WatchMetrics, health: WatchHealth, storeLogsOutages: Bool, limit: Duration? = nil) {
        self.logger = logger
        self.limit = limit
        self.metrics = metrics
        self.health = health
        logsOutages = !storeLogsOutages
    }

    /// `operation` (claim, commit, heartbeat, poll) failed with `error`: the watcher is not ready,
    /// and the outage is logged if it just began.
    func failed(_ operation: String, _ error: any Error) {
        let began = outage.withLock { outage in
            guard outage == nil else { return false }
            outage = Outage(since: .now, operation: operation)
            return true
        }
        let reason = "\(error)"
        health.databaseReachable(false, reason: reason)
        metrics.transientRetry(operation: operation)
        if began, logsOutages {
            logger.warning("the database cannot be reached; retrying until it answers", metadata: [
                "operation": "\(operation)", "error": "\(reason)",
            ])
        }
    }

    /// Throws the outage limit's error, with `error` as the last, once the outage going on has lasted
    /// longer than the limit.
    func requireWithinLimit(_ error: any Error) throws(RederiveError) {
        guard let limit, let since = outage.withLock({ $0?.since }), OutageLimit.passed(limit, since: since) else { return }
        throw OutageLimit.exceeded(limit, lastError: error)
    }

    /// The database answered: the watcher may be ready again, and an outage is logged as ended.
    func recovered() {
        let ended = outage.withLock { outage in
            defer { outage = nil }
            return outage
        }
        health.databaseReachable(true)
        if let ended, logsOutages {
            let seconds = ended.since.duration(to: .now).secondsValue
            logger.info("the database answers again", metadata: [
                "operation": "\(ended.operation)", "outageSeconds": "\((seconds * 10).rounded() / 10)",
            ])
        }
    }
}
