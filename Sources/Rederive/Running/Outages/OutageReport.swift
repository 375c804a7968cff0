import Foundation
import Logging
import Synchronization

/// Says when the database went out of reach, reminds at most every 30 s while it stays out, and says
/// when it is back and how long it was gone: three kinds of line for one outage, however many
/// attempts of however many paths (claims, commits, heartbeats, connections) fail in between.
///
/// One report serves a process's store (PostgreSQL's connection pool and statements tell it), or a
/// run's lease keeper where the store says nothing of its outages (``RecordStore/logsOutages``).
package final class OutageReport: Sendable {
    /// The longest the log stays silent while an outage goes on.
    package static let reminderInterval: Duration = .seconds(30)

    private struct Outage {
        let began: ContinuousClock.Instant
        var lastLine: ContinuousClock.Instant
    }

    private struct State {
        var outage: Outage?
        /// When the last outage ended: an attempt begun before then that fails after belongs to it.
        var lastEnded: ContinuousClock.Instant?
    }

    private let logger: Logger
    private let metadata: Logger.Metadata
    private let state = Mutex(State())

    /// A report that logs to `logger`, each line with `metadata` (such as the database it names).
    package init(logger: Logger, metadata: Logger.Metadata = [:]) {
        self.logger = logger
        self.metadata = metadata
    }

    /// When the outage going on began; nil while the database is reached.
    package var began: ContinuousClock.Instant? {
        state.withLock { $0.outage?.began }
    }

    /// An attempt begun at `attempt` failed for `reason`: the outage begins (one warning), unless it
    /// has; a reminder is due when the last line is 30 s old.
    ///
    /// An attempt begun before the last outage ended, that fails once it has, begins nothing: it was
    /// cut by that outage (a connection the server ended as it stopped, failing only now), and is no
    /// news of the database since. Tried again, it tells: a new outage begins with its next failure.
    package func failed(_ reason: String, since attempt: ContinuousClock.Instant = .now) {
        let now = ContinuousClock.now
        enum Line { case began, reminder(Duration) }
        let line = state.withLock { state -> Line? in
            guard var outage = state.outage else {
                if let ended = state.lastEnded, attempt < ended { return nil }
                state.outage = Outage(began: now, lastLine: now)
                return .began
            }
            guard outage.lastLine.duration(to: now) >= Self.reminderInterval else { return nil }
            outage.lastLine = now
            state.outage = outage
            return .reminder(outage.began.duration(to: now))
        }
        var metadata = self.metadata
        metadata["error"] = "\(reason)"
        switch line {
        case .began:
            logger.warning("cannot reach the database; retrying until it is back", metadata: metadata)
        case .reminder(let length):
            metadata["outage"] = "\(Self.seconds(length))"
            logger.warning("the database is still out of reach; retrying until it is back", metadata: metadata)
        case nil:
            break
        }
    }

    /// The database answered an attempt begun at `attempt`: the outage, if one began before that,
    /// ends (one line, with its length). An attempt begun during the outage, answered, ends it; one
    /// begun before it tells nothing of now.
    package func reached(since attempt: ContinuousClock.Instant = .now) {
        let now = ContinuousClock.now
        let began = state.withLock { state -> ContinuousClock.Instant? in
            guard let outage = state.outage, outage.began <= attempt else { return nil }
            state.outage = nil
            state.lastEnded = now
            return outage.began
        }
        guard let began else { return }
        var metadata = self.metadata
        metadata["outage"] = "\(Self.seconds(began.duration(to: now)))"
        logger.info("the database is reached again", metadata: metadata)
    }

    /// `27.3 s`: a length to a tenth of a second.
    private static func seconds(_ length: Duration) -> String {
        String(format: "%.1f s", length.secondsValue)
    }
}
