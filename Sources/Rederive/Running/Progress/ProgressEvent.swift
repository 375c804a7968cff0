/// A moment in a run, as reported to a ``ProgressReporter``.
public enum ProgressEvent: Sendable, Hashable {
    /// Another process holds the store's lease: the run waits for it before it counts what is pending.
    case waiting(LeaseHolder)
    /// The run started: `total` records are pending across its pipelines.
    case started(runID: Int64, total: Int)
    /// A batch was committed, or the records overdue changed while nothing was committed.
    case advanced(Progress)
    /// The run's claims stopped, because a pause or a throttle holds them, and everything claimed was
    /// committed; or, with nil, they go on again.
    case held(ClaimHold?)
    /// The run ended.
    case finished(RunSummary)

    /// Where a run stands after a commit.
    public struct Progress: Sendable, Hashable {
        /// The run's id.
        public let runID: Int64
        /// The pipeline whose batch was just committed.
        public let pipeline: String
        /// Records handled so far, across all pipelines.
        public let done: Int
        /// Records pending when the run started.
        public let total: Int
        /// What the run did so far: derived, unchanged, failed and skipped records.
        public let counts: RunCounts
        /// Time since the run started.
        public let elapsed: Duration
        /// Records in progress for longer than the run's per-record timeout, longest first.
        public let overdue: [InFlightRecord]
        /// Records the pipeline's next batch commits at the most: sized toward the run's target
        /// duration, or fixed (``Runner/Configuration/batchSize``); nil when not told.
        public let batchSize: Int?
        /// Claims and commits this process tried again after a transient error so far.
        public let transientRetries: Int

        /// Where a run stands; the ``Runner`` reports these.
        public init(
            runID: Int64, pipeline: String, done: Int, total: Int, counts: RunCounts, elapsed: Duration,
            overdue: [InFlightRecord] = [], batchSize: Int? = nil, transientRetries: Int = 0
        ) {
            self.runID = runID
            self.pipeline = pipeline
            self.done = done
            self.total = total
            self.counts = counts
            self.elapsed = elapsed
            self.overdue = overdue
            self.batchSize = batchSize
            self.transientRetries = transientRetries
        }

        /// Records per second since the run started.
        public var rate: Double {
            let seconds = elapsed.secondsValue
            return seconds > 0 ? Double(done) / seconds : 0
        }

        /// Failures so far.
        public var failed: Int { counts.failed }

        /// Time left at the rate so far: zero when every record is done, nil while the rate is not
        /// known yet.
        public var estimatedRemaining: Duration? {
            guard done < total else { return .zero }
            let rate = self.rate
            guard rate > 0 else { return nil }
            return .milliseconds(Int64(min(Double(total - done) / rate * 1000, 1e15).rounded()))
        }
    }
}

/// How a run ended, with its counts.
public struct RunSummary: Sendable, Hashable {
    /// The run's id, as `rederive history` lists it.
    public let runID: Int64
    /// Whether the run completed, was interrupted or failed.
    public let status: RunStatus
    /// Records pending when the run started.
    public let pending: Int
    /// What the run did: derived, unchanged, failed and skipped records.
    public let counts: RunCounts
    /// How long the run took.
    public let elapsed: Duration
    /// Records still in progress for longer than the per-record timeout when the run ended: the run
    /// cannot stop a processor that hangs inside its own process (see ``Runner/Configuration/recordTimeout``).
    public let overdue: [InFlightRecord]
    /// How the run's records used stored projections: how many derived from them, and how many fell
    /// back to their payload, by reason. Empty for pipelines without a ``Projection``.
    public let projections: ProjectionCounts
    /// Claims and commits tried again after a transient error (a lost connection, a serialization
    /// failure, a deadlock, a lock not granted in time): none of them made a record fail.
    public let transientRetries: Int

    /// A run's outcome; the ``Runner`` returns these.
    public init(
        runID: Int64, status: RunStatus, pending: Int, counts: RunCounts, elapsed: Duration, overdue: [InFlightRecord] = [],
        projections: ProjectionCounts = ProjectionCounts(), transientRetries: Int = 0
    ) {
        self.runID = runID
        self.status = status
        self.pending = pending
        self.counts = counts
        self.elapsed = elapsed
        self.overdue = overdue
        self.projections = projections
        self.transientRetries = transientRetries
    }

    /// Records handled per second.
    public var rate: Double {
        let seconds = elapsed.secondsValue
        return seconds > 0 ? Double(counts.total) / seconds : 0
    }
}

/// Durations as numbers of seconds, for rates and reports.
extension Duration {
    /// The duration in seconds, as a floating-point number.
    package var secondsValue: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
