#if PostgreSQL
import Logging
import Rederive
import Synchronization

/// The one place a process's store says that the server went out of reach, reminds while it stays
/// out, and says when it is back (an `OutageReport`); and where a server that refuses the work for
/// good (a missing database) ends every statement that waits for a connection, at once.
///
/// While the server cannot be reached, the connection pool retries on its own and every statement
/// waits for it; without these lines, a worker would wait in silence. The outage begins with the
/// pool's first failed connection, a statement whose connection failed or got no answer, or the loss
/// of a watcher's listening connection; it ends with the first statement begun since that the server
/// answers, or the listening connection made again. A statement begun before the outage ends
/// nothing: the outage would be logged as over while it goes on, and again as it is noticed. Nor
/// does one begun before the outage ended, that fails after, begin another: a restart that cuts
/// an idle watcher's listening connection first would otherwise be logged twice. A
/// session the server ended for being idle (`idle_session_timeout`) is no outage. The pool's own
/// messages (one per attempt, in SwiftNIO's words) are only for `debug`.
final class OutageWatch: Sendable {
    private let report: OutageReport
    private struct Refusal {
        var error: RederiveError?
        var waiting: [UInt64: @Sendable (RederiveError) -> Void] = [:]
        var next: UInt64 = 0
    }
    private let refusal = Mutex(Refusal())
    /// Whether the pool's last connection attempt failed, the statements waiting for one of its
    /// connections meanwhile, and how to learn that it connects again.
    private struct PoolState {
        var failing = false
        var waiting: [UInt64: @Sendable (String) -> Void] = [:]
        var next: UInt64 = 0
        /// The pool's failed attempts so far: a probe that got a connection while another failed
        /// tells nothing of now, and asks again.
        var failures: UInt64 = 0
        var probe: (@Sendable () async -> PoolProbe)?
        var probing = false
    }
    private let pool = Mutex(PoolState())

    /// What asking the pool for a connection found.
    enum PoolProbe: Sendable {
        /// It handed one out: it connects again.
        case connected
        /// It did not, for now.
        case failed
        /// It is shut down: the store was closed.
        case shutDown
    }

    /// How long a probe that found no connection waits before it asks again.
    static let probePause: Duration = .seconds(1)

    init(logger: Logger, database: String) {
        report = OutageReport(logger: logger, metadata: ["database": "\(database)"])
    }

    /// A connection could not be made, or a statement's begun at `attempt` failed, for `reason`: the
    /// outage begins unless it already has, or the attempt began before the last outage ended (it
    /// was cut by that one), and a reminder is logged when one is due.
    func connectionFailed(_ reason: String, since attempt: ContinuousClock.Instant = .now) {
        report.failed(reason, since: attempt)
    }

    /// The server answered a statement, or a connection, begun at `attempt`: the outage, if there was
    /// one and it began before that, ends.
    func reached(since attempt: ContinuousClock.Instant) {
        report.reached(since: attempt)
    }

    /// The server refuses connections for good, with `error`: every statement waiting for one, and
    /// every one to come, ends with it.
    func refused(_ error: RederiveError) {
        let waiting = refusal.withLock { refusal in
            guard refusal.error == nil else { return [@Sendable (RederiveError) -> Void]() }
            refusal.error = error
            defer { refusal.waiting = [:] }
            return Array(refusal.waiting.values)
        }
        for end in waiting { end(error) }
    }

    /// Runs `end` with the refusal when the server refuses connections for good, now (at once) or
    /// until the returned key is handed to ``forget(_:)``.
    func onRefusal(_ end: @escaping @Sendable (RederiveError) -> Void) -> UInt64? {
        let (key, refused) = refusal.withLock { refusal -> (UInt64?, RederiveError?) in
            if let error = refusal.error { return (nil, error) }
            refusal.next += 1
            refusal.waiting[refusal.next] = end
            return (refusal.next, nil)
        }
        if let refused { end(refused) }
        return key
    }

    /// Stops telling the statement registered under `key`.
    func forget(_ key: UInt64?) {
        guard let key else { return }
        _ = refusal.withLock { $0.waiting.removeValue(forKey: key) }
    }

    /// Whether the pool's connection attempts fail: it then makes one at a time, after waits that grow
    /// to a minute, and hands out no connection between them, however soon the server is back.
    /// Statements connect on their own meanwhile (``PostgresStore/watched(within:cancelled:_:)``), so
    /// that the run's own retries, capped at a few seconds, find the server once it is back, until a
    /// probe gets a connection from the pool again.
    var poolFailing: Bool { pool.withLock { $0.failing } }

    /// The pool could not make a connection, for `reason`: every statement waiting for one of its
    /// connections ends with the reason at once, to be tried again on a connection of its own, and
    /// a probe asks the pool for a connection until it hands one out (``probingPool(with:)``).
    func poolConnectionFailed(_ reason: String) {
        let (waiting, probe) = pool.withLock { pool in
            pool.failing = true
            pool.failures += 1
            defer { pool.waiting = [:] }
            let probe = pool.probing ? nil : pool.probe
            if probe != nil { pool.probing = true }
            return (Array(pool.waiting.values), probe)
        }
        for end in waiting { end(reason) }
        if let probe { startProbing(probe) }
    }

    /// Asks the pool for a connection with `probe` once its connection attempts fail, since its log
    /// tells of a failed attempt but not of one that succeeds: the pool serves statements again once
    /// it hands a connection out.
    func probingPool(with probe: @escaping @Sendable () async -> PoolProbe) {
        pool.withLock { $0.probe = probe }
    }

    /// One probe at a time, until the pool hands out a connection or is shut down.
    private func startProbing(_ probe: @escaping @Sendable () async -> PoolProbe) {
        Task { [self] in
            while true {
                let failures = pool.withLock { $0.failures }
                let outcome = await probe()
                let done = pool.withLock { pool -> Bool in
                    switch outcome {
                    case .connected where pool.failures == failures:
                        pool.failing = false
                    case .shutDown:
                        break
                    case .connected, .failed:
                        return false
                    }
                    pool.probing = false
                    return true
                }
                if done { return }
                try? await Task.sleep(for: Self.probePause)
            }
        }
    }

    /// Runs `end` with the reason when the pool's connection attempts fail, at once when they do
    /// now, or until the returned key is handed to ``forgetPoolWait(_:)``.
    func onPoolFailure(_ end: @escaping @Sendable (String) -> Void) -> UInt64? {
        let key = pool.withLock { pool -> UInt64? in
            guard !pool.failing else { return nil }
            pool.next += 1
            pool.waiting[pool.next] = end
            return pool.next
        }
        if key == nil { end("the pool cannot connect to the server") }
        return key
    }

    /// Stops telling the statement registered under `key`.
    func forgetPoolWait(_ key: UInt64?) {
        guard let key else { return }
        _ = pool.withLock { $0.waiting.removeValue(forKey: key) }
    }
}

/// The connection pool's log handler: tells the ``OutageWatch`` when a connection cannot be made,
/// and passes the pool's messages on to the store's logger at `debug`, since the watch says in one
/// line what they say at every attempt.
struct PoolLogHandler: LogHandler {
    let watch: OutageWatch
    let forward: Logger
    /// The database, named in a refusal.
    let location: String
    var logLevel: Logger.Level = .debug
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        // PostgresNIO's pool says so in these words, with the error as text only.
        if "\(event.message)" == "Connection creation failed" {
            let text = event.metadata?["psql_error"].map { "\($0)" } ?? ""
            let reason = ConnectionFailure.reason(text: text)
            if let state = ConnectionFailure.sqlState(in: text), ConnectionFailure.refuses(sqlState: state) {
                watch.refused(RederiveError(.databaseRefused, "cannot use \(location): \(reason)"))
            } else {
                watch.connectionFailed(reason)
                watch.poolConnectionFailed(reason)
            }
        }
        var merged = metadata
        if let extra = event.metadata {
            merged.merge(extra) { _, new in new }
        }
        forward.log(level: min(event.level, .debug), event.message, metadata: merged, source: event.source, file: event.file, function: event.function, line: event.line)
    }
}
#endif
