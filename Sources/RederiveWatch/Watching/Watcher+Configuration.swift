import Rederive

extension Watcher {
    /// How a watcher divides its work, looks for changes, records its runs and stops.
    public struct Configuration: Sendable {
        /// How each pass divides and paces its work: workers, batch size, lease, maximum rate.
        /// `limit` is ignored: a watcher derives whatever becomes stale.
        public var runner: Runner.Configuration
        /// How often the store is asked whether anything was committed (SQLite's `PRAGMA
        /// data_version`); a store that is told (PostgreSQL's notifications) is not asked.
        public var signalInterval: Duration = .milliseconds(10)
        /// How long the watcher waits for a signal before it looks for stale records anyway: a signal
        /// lost (a dropped connection, a missed notification) delays records this long at most.
        public var pollInterval: Duration = .seconds(5)
        /// How long a stopping watcher waits for the records in flight before it leaves them
        /// uncommitted (they stay stale, and the next watcher or run derives them).
        public var drainTimeout: Duration = .seconds(10)
        /// The longest a watcher's run lasts in `history`: a busy watcher ends its run and starts
        /// another this often, so that each run, its failures and its rollback stay of a readable size.
        public var runWindow: Duration = .seconds(15 * 60)
        /// A run ends once the watcher has found nothing to derive for this long.
        public var quietPeriod: Duration = .seconds(10)
        /// From this many stale records on, the watcher drains them as a backlog: in a lane of their
        /// own, beside a lane that derives records written meanwhile, so that those are not queued
        /// behind it. Fewer are derived at once.
        public var backlogThreshold = 1_000
        /// While a backlog drains, the shortest time between two looks for fresh records (new,
        /// rewritten, invalidated), unless a look found as many as it could claim: the backlog's
        /// workers look before their claims when the store signalled a change, and derive what they
        /// find ahead of the backlog. Each look is a claim on the backlog's path: records arriving one
        /// by one are claimed a few at a time, each waiting this long at most for its look.
        public var freshPassInterval: Duration = .milliseconds(50)
        /// The longest a rewritten or invalidated record waits while records keep being written: the
        /// watcher looks for fresh records where it last found some (new records come last), and
        /// through the whole table at most this often.
        public var freshSweepInterval: Duration = .seconds(1)
        /// The longest wait between attempts while the database cannot be reached.
        public var maximumBackoff: Duration = .seconds(30)
        /// How long the watcher waits out its database before it ends with
        /// `RederiveError/Code-swift.enum/outage`; nil, the default, waits without end (it replaces
        /// `runner`'s `Runner/Configuration-swift.struct/outageLimit`). A watcher is a service:
        /// ended, its supervisor would only start it again into the same outage, while waiting it
        /// reports itself not ready (`/readyz`) and logs a reminder every 30 s.
        public var outageLimit: Duration? = nil

        /// A watcher's configuration around `runner`'s settings.
        public init(runner: Runner.Configuration = Runner.Configuration()) {
            self.runner = runner
        }

        /// Throws when a setting is out of its range.
        func validate() throws(RederiveError) {
            try runner.validate()
            for (name, value) in [
                ("signal interval", signalInterval), ("poll interval", pollInterval), ("drain timeout", drainTimeout),
                ("run window", runWindow), ("quiet period", quietPeriod), ("maximum backoff", maximumBackoff),
                ("fresh pass interval", freshPassInterval), ("fresh sweep interval", freshSweepInterval),
            ] where value <= .zero {
                throw RederiveError(.invalidArgument, "the \(name) must be positive")
            }
            if let outageLimit, outageLimit <= .zero {
                throw RederiveError(.invalidArgument, "the outage limit must be positive")
            }
            if backlogThreshold < 1 {
                throw RederiveError(.invalidArgument, "the backlog threshold must be at least 1, not \(backlogThreshold)")
            }
        }
    }
}
