import Foundation
import RederiveCodec

extension Runner {
    /// How a run divides and paces its work.
    public struct Configuration: Sendable {
        /// Workers that inflate, decode and derive at once. Defaults to the number of cores. A run
        /// starts no more workers, each with a thread of its own, than it has records to derive.
        public var parallelism: Int
        /// Records committed in one transaction, fixed; nil sizes each batch toward
        /// ``targetBatchDuration`` instead (see ``batchSizeBounds``).
        public var batchSize: Int?
        /// How long one commit should take, when ``batchSize`` is nil: each batch, and each claim with
        /// it, is sized from how long the commits before it took (smoothed, growing by at most ×1.2
        /// per commit, shrinking faster). Nil for the store's ``RecordStore/preferredBatchDuration``.
        public var targetBatchDuration: Duration? = nil
        /// The fewest and the most records a batch sized toward ``targetBatchDuration`` holds; it
        /// starts at 500, within them. A batch of the fewest still commits when commits take longer
        /// than the target (another writer holds the database's lock), so that the run goes on.
        public var batchSizeBounds: ClosedRange<Int> = 10...10_000
        /// Stored payload bytes read into one batch at the most, so that memory stays bounded when
        /// payloads are large: a batch ends early rather than exceed it (it always holds one record).
        public var batchByteLimit: Int
        /// Names of the processors to bring up to date; all when nil.
        public var processors: Set<String>?
        /// Whether records that already failed at the current version and payload are tried again.
        public var retryFailed: Bool
        /// The most records one run handles; all pending when nil.
        public var limit: Int?
        /// Payloads that inflate to more than this many bytes fail instead of exhausting memory.
        public var maximumPayloadSize: Int
        /// Records per second the run does not exceed, for databases that must not be saturated. It
        /// holds at every moment: after a pause, such as the database out of reach, one claim of
        /// records may start at once, and the rate holds again from there; time lost is never caught up.
        public var maximumRate: Double?
        /// Where records are derived; the runner's own concurrent workers when nil.
        public var deriver: (any RecordDeriver)? = nil
        /// Records one worker claims at a time; nil for the store's ``RecordStore/preferredClaimSize``.
        /// Small claims keep the workers evenly busy; each claim costs the store a query or, on a
        /// server, a transaction.
        public var claimSize: Int? = nil
        /// How long the writer waits for a full batch before it commits what it holds, so progress
        /// stays live and little is lost to an interruption.
        public var commitInterval: Duration = .milliseconds(100)
        /// How long the store's lease lasts without renewal; the run renews it at a third of that.
        /// A process killed while holding it blocks others (or, on a shared store, its claims) this long;
        /// on SQLite, a process gone from this host is taken over at once.
        public var leaseDuration: Duration = .seconds(15)
        /// How often a run that waits for another process's lease asks again.
        public var leasePollInterval: Duration = .seconds(1)
        /// Records being derived for longer than this are reported in progress events and in the
        /// summary. A deriver that runs records in worker processes also stops them (see ``FailureKind/timeout``);
        /// the runner's own workers cannot stop a processor that hangs, only show it.
        public var recordTimeout: Duration? = nil
        /// How long the run waits out the database: a claim or a commit that fails for a transient
        /// reason (``RederiveError/isTransient``: a lost connection, a serialization failure, a
        /// deadlock, a lock not granted in time) is tried again, with a capped, jittered backoff, and
        /// the lease's heartbeat goes on, for this long since the first failure in a row; past it the
        /// run ends with ``RederiveError/Code-swift.enum/outage`` (what was committed stays). Such an
        /// error never becomes a failure of a record; the summary counts the retries. Nil waits
        /// without end. The default, 5 minutes, rides out a server's restart or a failover, and still
        /// ends a batch job whose database is gone for good.
        public var outageLimit: Duration? = Self.defaultOutageLimit

        /// How long a run waits out the database unless told otherwise (``outageLimit``).
        public static let defaultOutageLimit: Duration = .seconds(300)
        /// Whether payload processors derive from a record's stored projection when it is current
        /// (pipelines that declare a ``Projection``). False derives every record from its payload,
        /// and writes its projection again; `run --no-projection`.
        public var readsProjections = true
        /// Signals of the database's or the app's health that hold the run's claims while they say so
        /// (see ``Throttle``): replica lag, a growing write-ahead log, a maintenance flag. None by default.
        public var throttles: [Throttle] = []

        /// The size a sized batch starts at, within ``batchSizeBounds``.
        package static let initialBatchSize = 500

        /// A configuration; every setting has a default that suits a run on this machine.
        public init(
            parallelism: Int = ProcessInfo.processInfo.activeProcessorCount,
            batchSize: Int? = nil,
            batchByteLimit: Int = 16 << 20,
            processors: Set<String>? = nil,
            retryFailed: Bool = false,
            limit: Int? = nil,
            maximumPayloadSize: Int = PayloadCodec.defaultMaximumSize,
            maximumRate: Double? = nil
        ) {
            self.parallelism = parallelism
            self.batchSize = batchSize
            self.batchByteLimit = batchByteLimit
            self.processors = processors
            self.retryFailed = retryFailed
            self.limit = limit
            self.maximumPayloadSize = maximumPayloadSize
            self.maximumRate = maximumRate
        }

        /// Throws when a setting is out of its range.
        package func validate() throws(RederiveError) {
            if parallelism < 1 {
                throw RederiveError(.invalidArgument, "parallelism must be at least 1, not \(parallelism)")
            }
            if let batchSize, batchSize < 1 {
                throw RederiveError(.invalidArgument, "batch size must be at least 1, not \(batchSize)")
            }
            if let targetBatchDuration, targetBatchDuration <= .zero {
                throw RederiveError(.invalidArgument, "the target batch duration must be positive")
            }
            if batchSizeBounds.lowerBound < 1 {
                throw RederiveError(.invalidArgument, "the fewest records of a sized batch must be at least 1, not \(batchSizeBounds.lowerBound)")
            }
            if batchByteLimit < 1 {
                throw RederiveError(.invalidArgument, "batch byte limit must be positive, not \(batchByteLimit)")
            }
            if let limit, limit < 0 {
                throw RederiveError(.invalidArgument, "limit must not be negative, not \(limit)")
            }
            if maximumPayloadSize < 1 {
                throw RederiveError(.invalidArgument, "maximum payload size must be positive, not \(maximumPayloadSize)")
            }
            if let claimSize, claimSize < 1 {
                throw RederiveError(.invalidArgument, "claim size must be at least 1, not \(claimSize)")
            }
            if let recordTimeout, recordTimeout <= .zero {
                throw RederiveError(.invalidArgument, "the per-record timeout must be positive")
            }
            if let outageLimit, outageLimit <= .zero {
                throw RederiveError(.invalidArgument, "the outage limit must be positive")
            }
            if leaseDuration <= .zero {
                throw RederiveError(.invalidArgument, "the lease duration must be positive")
            }
            for throttle in throttles {
                try throttle.validate()
            }
            if let maximumRate, !(maximumRate > 0) {
                throw RederiveError(.invalidArgument, "maximum rate must be positive, not \(maximumRate)")
            }
        }
    }
}
