import Foundation

/// How far a run that workers derive now has got, as `rederive status` shows it: the records done of
/// those pending when it started, how fast its workers have committed lately, the time left at that
/// rate, and each worker's share of it.
///
/// A store that many processes derive at once reads it for every run in progress
/// (``SharedRunReporting``); a store one process derives at a time has that process's own progress
/// events instead (``ProgressEvent/Progress``).
public struct SharedRunProgress: Sendable, Hashable {
    /// One worker's part of a run.
    public struct Share: Sendable, Hashable {
        /// The worker's process; nil once its lease is gone (it finished, or was killed and reaped).
        public let worker: WorkerIdentity?
        /// What its commits counted in the run.
        public let counts: RunCounts
        /// Records per second over its last commits, smoothed; nil before its second commit, or when
        /// it has committed nothing for 30 s.
        public let recentRate: Double?
        /// When it last committed.
        public let lastCommit: Date?
        /// When it last renewed its lease; nil once the lease is gone.
        public let lastHeartbeat: Date?

        /// A share as a store reads it.
        public init(worker: WorkerIdentity?, counts: RunCounts, recentRate: Double?, lastCommit: Date?, lastHeartbeat: Date?) {
            self.worker = worker
            self.counts = counts
            self.recentRate = recentRate
            self.lastCommit = lastCommit
            self.lastHeartbeat = lastHeartbeat
        }

        /// Records its commits handled.
        public var done: Int { counts.total }
    }

    /// The run's id, as `rederive history` lists it.
    public let runID: Int64
    /// When the run started.
    public let startedAt: Date
    /// Records pending when the run started; nil for a run whose count was not kept.
    public let total: Int?
    /// Every worker's share, in the order they joined.
    public let shares: [Share]

    /// A run's progress as a store reads it.
    public init(runID: Int64, startedAt: Date, total: Int?, shares: [Share]) {
        self.runID = runID
        self.startedAt = startedAt
        self.total = total
        self.shares = shares
    }

    /// What the run's commits counted, across its workers.
    public var counts: RunCounts { shares.reduce(RunCounts()) { $0 + $1.counts } }

    /// Records handled so far.
    public var done: Int { counts.total }

    /// Records per second the run's workers have committed lately: the sum of their recent rates; nil
    /// while none has one.
    public var recentRate: Double? {
        let rates = shares.compactMap(\.recentRate)
        return rates.isEmpty ? nil : rates.reduce(0, +)
    }

    /// Time left at the recent rate: zero when every record is done, nil while the rate or the total is
    /// not known.
    public var estimatedRemaining: Duration? {
        guard let total else { return nil }
        guard done < total else { return .zero }
        guard let rate = recentRate, rate > 0 else { return nil }
        return .milliseconds(Int64(min(Double(total - done) / rate * 1000, 1e15).rounded()))
    }
}

/// A store that many processes derive at once, which says how far each run in progress has got.
public protocol SharedRunReporting: Sendable {
    /// Every run that workers derive now, oldest first, with each worker's share.
    func runsInProgress() async throws -> [SharedRunProgress]
}
