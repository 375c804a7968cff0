import Foundation

/// A moment in a run, as reported to a ``ProgressReporter``.
public enum ProgressEvent: Sendable, Hashable {
    /// The run started: `total` records are pending across its pipelines.
    case started(runID: Int64, total: Int)
    /// A batch was committed.
    case advanced(Progress)
    /// The run ended.
    case finished(RunSummary)

    /// Where a run stands after a commit.
    public struct Progress: Sendable, Hashable {
        public let runID: Int64
        public let pipeline: String
        /// Records handled so far, across all pipelines.
        public let done: Int
        /// Records pending when the run started.
        public let total: Int
        public let counts: RunCounts
        public let elapsed: Duration

        public init(runID: Int64, pipeline: String, done: Int, total: Int, counts: RunCounts, elapsed: Duration) {
            self.runID = runID
            self.pipeline = pipeline
            self.done = done
            self.total = total
            self.counts = counts
            self.elapsed = elapsed
        }

        /// Records per second since the run started.
        public var rate: Double {
            let seconds = elapsed.secondsValue
            return seconds > 0 ? Double(done) / seconds : 0
        }

        /// Failures so far.
        public var failed: Int { counts.failed }
    }
}

/// How a run ended, with its counts.
public struct RunSummary: Sendable, Hashable {
    public let runID: Int64
    public let status: RunStatus
    /// Records pending when the run started.
    public let pending: Int
    public let counts: RunCounts
    public let elapsed: Duration

    public init(runID: Int64, status: RunStatus, pending: Int, counts: RunCounts, elapsed: Duration) {
        self.runID = runID
        self.status = status
        self.pending = pending
        self.counts = counts
        self.elapsed = elapsed
    }

    /// Records handled per second.
    public var rate: Double {
        let seconds = elapsed.secondsValue
        return seconds > 0 ? Double(counts.total) / seconds : 0
    }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    public var secondsValue: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
