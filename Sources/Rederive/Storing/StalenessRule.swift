/// What a store holds of one processor for one record that decides whether the record is stale for
/// it: the versions of its current stamp and of its current failure, if any.
///
/// A stamp or failure that is not current (its payload changed since, or it was invalidated) counts
/// as none.
public struct ProcessorRecordState: Sendable, Hashable {
    /// The logic version of the processor's current stamp for the record; nil when none is current.
    public var currentStampVersion: Int?
    /// The logic version of the processor's current failure on the record; nil when none is current.
    public var currentFailureVersion: Int?

    /// The state of one processor for one record.
    ///
    /// - Parameters:
    ///   - currentStampVersion: The version of the current stamp, if one is current.
    ///   - currentFailureVersion: The version of the current failure, if one is current.
    public init(currentStampVersion: Int? = nil, currentFailureVersion: Int? = nil) {
        self.currentStampVersion = currentStampVersion
        self.currentFailureVersion = currentFailureVersion
    }
}

/// The staleness rule, decided here once: the SQL stores spell the same rule in their queries, and
/// the conformance suite holds every store to it.
extension RunPlan {
    /// Whether the processor at `index` is stale for a record in this plan's lane.
    ///
    /// It is stale unless a current stamp of its version vouches for the record's values, or, unless
    /// the plan retries failures, a current failure of its version says it failed on this payload. Of
    /// the stale records, the fresh lane takes those with no current stamp at any version, and the
    /// backlog those whose current stamp is of another version.
    public func isStale(_ index: Int, _ state: ProcessorRecordState) -> Bool {
        let version = pipeline.processors[index].version
        if state.currentStampVersion == version { return false }
        if !retryFailed, state.currentFailureVersion == version { return false }
        return switch lane {
        case .all: true
        case .fresh: state.currentStampVersion == nil
        case .backlog: state.currentStampVersion != nil
        }
    }

    /// The selected processors stale for the record `recordID`, in index order, from each one's
    /// state; none for a record outside ``recordIDs``.
    public func staleProcessors(of recordID: Int64, _ state: (Int) -> ProcessorRecordState) -> [Int] {
        guard recordIDs.contains(recordID) else { return [] }
        return selection.filter { isStale($0, state($0)) }
    }
}
