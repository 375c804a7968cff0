/// Which of a plan's stale records a claim hands out, so that a watcher can derive fresh records
/// ahead of a backlog: two lanes that never hand out the same record for the same processor.
///
/// A record is stale for a processor when it has no current stamp at the processor's version (and,
/// unless failures are retried, no current failure there). It is either:
/// - **fresh**: it has no current stamp at any version: a new record, a payload written since it was
///   derived, a record invalidated or one whose last attempt failed;
/// - or in the **backlog**: its values are current, but from another version of the processor, as
///   after a logic version's bump.
public enum StaleLane: String, Sendable, Hashable, CaseIterable {
    /// Every stale record: what `rederive run` derives.
    case all
    /// Records with no current stamp at any version.
    case fresh
    /// Records whose current stamp is of another version.
    case backlog
}
