/// What keeps a run's replaced values, and when a rollback or a reset may go ahead: decided here,
/// once, and applied by every store.
///
/// - The window of kept values is counted in runs that changed values: the values a run replaced
///   are kept until `keep` later runs have changed values too. A run that found nothing stale, or
///   derived only values already stored, uses none of it, so cron jobs and deploy scripts that run
///   with nothing to do forget nothing.
/// - A rollback of a run in progress, or beside one, is refused, as is a reset beside one: the run's
///   commits would land on top of what they put back or cleared.
/// - A rollback of a run that changed values, of which nothing is kept now, fails and says why,
///   rather than restore nothing and succeed.
/// - Which kept entries a rollback restores, and why it skips the others, is the
///   ``RollbackPlan``'s to decide.
public enum RollbackRules {
    /// How many of the newest runs that changed values keep what they replaced, unless a store is
    /// told otherwise.
    public static let defaultKeptRuns = 20

    /// Of the runs that keep replaced values now (in any order), those to forget as a new run starts,
    /// keeping the newest `keep`.
    public static func runsToForget(_ runsKeepingValues: some Sequence<Int64>, keep: Int) -> [Int64] {
        Array(Set(runsKeepingValues).sorted(by: >).dropFirst(max(0, keep)))
    }

    /// A run that is deriving now, as a store finds it: its id and the process deriving it.
    public struct RunInProgress: Sendable, Hashable {
        /// The run's id.
        public let runID: Int64
        /// Who derives it: `pid 4711 on build-3`.
        public let holder: String

        /// A run in progress.
        public init(runID: Int64, holder: String) {
            self.runID = runID
            self.holder = holder
        }
    }

    /// What a store knows of the run it is asked to roll back, read in the rollback's own transaction.
    public struct Candidate: Sendable, Hashable {
        /// The run to roll back.
        public let runID: Int64
        /// How it ended, or `running`.
        public let status: RunStatus
        /// Records whose values it changed, as its history counts them.
        public let changedRecords: Int
        /// Entries (record and processor) whose replaced values are kept for it now.
        public let keptEntries: Int
        /// Runs after it that keep replaced values now.
        public let laterRunsKeepingValues: Int
        /// Runs deriving now, whatever their id.
        public let inProgress: [RunInProgress]

        /// What a store read of a run before rolling it back.
        public init(
            runID: Int64, status: RunStatus, changedRecords: Int, keptEntries: Int, laterRunsKeepingValues: Int,
            inProgress: [RunInProgress]
        ) {
            self.runID = runID
            self.status = status
            self.changedRecords = changedRecords
            self.keptEntries = keptEntries
            self.laterRunsKeepingValues = laterRunsKeepingValues
            self.inProgress = inProgress
        }
    }

    /// Throws, in one line, unless `candidate` may be rolled back in `database` (as messages name it),
    /// whose store keeps the values of the newest `keep` runs that changed values.
    ///
    /// A run that changed no values, and keeps none, passes: rolling it back restores nothing, and the
    /// report says so.
    public static func requireRollbackable(_ candidate: Candidate, in database: String, keep: Int) throws(RederiveError) {
        let runID = candidate.runID
        if let own = candidate.inProgress.first(where: { $0.runID == runID }) {
            throw RederiveError(
                .invalidArgument,
                "run \(runID) is still in progress (\(own.holder)); roll it back once it has ended, or end it first with rederive cancel"
            )
        }
        try requireNoRunInProgress(candidate.inProgress, before: "roll back run \(runID)")
        guard candidate.keptEntries == 0, candidate.changedRecords > 0 else { return }
        if candidate.laterRunsKeepingValues >= keep {
            throw RederiveError(
                .invalidArgument,
                "run \(runID) of \(database) changed \(candidate.changedRecords == 1 ? "1 record" : "\(candidate.changedRecords) records"), but what it replaced is no longer kept: only the \(keep) newest runs that changed values keep theirs, and \(candidate.laterRunsKeepingValues) have since"
            )
        }
        throw RederiveError(
            .invalidArgument,
            "nothing run \(runID) replaced is kept in \(database) any more: it was rolled back already, or reset cleared it"
        )
    }

    /// Throws, in one line, when a run is in progress, before an action (`reset pipeline "rooms"`)
    /// whose changes the run would commit on top of.
    public static func requireNoRunInProgress(_ inProgress: [RunInProgress], before action: String) throws(RederiveError) {
        guard let run = inProgress.first else { return }
        throw RederiveError(
            .invalidArgument,
            "cannot \(action) while run \(run.runID) is in progress (\(run.holder)); try again once it has ended, or end it first with rederive cancel"
        )
    }
}
