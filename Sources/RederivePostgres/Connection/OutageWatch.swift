#if PostgreSQL
import Foundation
import Logging
import Synchronization

/// Says in one line when the server went out of reach, and in one more when it is back.
///
/// While the server cannot be reached, the connection pool retries on its own and every statement
/// waits for it; without these lines, a worker would wait in silence. The outage begins with the
/// pool's first failed connection, or with the loss of a watcher's listening connection, and ends
/// with the first statement begun since that the server answers, or the listening connection made
/// again. A statement begun before the outage, or handed a pooled connection the server has ended
/// and not told yet, ends nothing: the outage would be logged as over while it goes on, and again as
/// it is noticed. The pool's own messages (one per attempt, in SwiftNIO's words) are only for `debug`.
final class OutageWatch: Sendable {
    private let logger: Logger
    private let database: String
    /// When the current outage began; nil while the server is reached.
    private let began = Mutex<ContinuousClock.Instant?>(nil)

    init(logger: Logger, database: String) {
        self.logger = logger
        self.database = database
    }

    /// A connection could not be made, for `reason`: the outage begins, unless it already has.
    func connectionFailed(_ reason: String) {
        let now = ContinuousClock.now
        let first = began.withLock { began in
            guard began == nil else { return false }
            began = now
            return true
        }
        guard first else { return }
        logger.warning("cannot reach the database; retrying until it is back", metadata: [
            "database": "\(database)", "error": "\(reason)",
        ])
    }

    /// The server answered a statement, or a connection, begun at `attempt`: the outage, if there was
    /// one and it began before that, ends.
    func reached(since attempt: ContinuousClock.Instant) {
        let now = ContinuousClock.now
        let start = began.withLock { began -> ContinuousClock.Instant? in
            guard let start = began, start <= attempt else { return nil }
            began = nil
            return start
        }
        guard let start else { return }
        let seconds = (now - start) / .seconds(1)
        logger.info("the database is reached again", metadata: [
            "database": "\(database)", "outage": "\(String(format: "%.1f", seconds)) s",
        ])
    }
}

/// The connection pool's log handler: tells the ``OutageWatch`` when a connection cannot be made,
/// and passes the pool's messages on to the store's logger at `debug`, since the watch says in one
/// line what they say at every attempt.
struct PoolLogHandler: LogHandler {
    let watch: OutageWatch
    let forward: Logger
    var logLevel: Logger.Level = .debug
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        // PostgresNIO's pool says so in these words, with the error as text only.
        if "\(event.message)" == "Connection creation failed" {
            watch.connectionFailed(ConnectionFailure.reason(text: event.metadata?["psql_error"].map { "\($0)" } ?? ""))
        }
        var merged = metadata
        if let extra = event.metadata {
            merged.merge(extra) { _, new in new }
        }
        forward.log(level: min(event.level, .debug), event.message, metadata: merged, source: event.source, file: event.file, function: event.function, line: event.line)
    }
}
#endif
