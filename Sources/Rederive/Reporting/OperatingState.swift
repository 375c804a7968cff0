/// Where a run in progress stands, beyond its ``RunStatus/running``: what `status` and `history` show
/// from the stored pauses and cancels and what its workers reported.
public enum OperatingState: Sendable, Hashable, CustomStringConvertible {
    /// Its workers claim and derive.
    case running
    /// A pause holds it, and some of its workers still derive or commit what they had claimed.
    case pausing
    /// A pause holds it, and every worker waits with everything it claimed committed (or none is left).
    case paused
    /// `rederive cancel` asked it to end; its workers commit what they had claimed, then end it as
    /// ``RunStatus/cancelled``.
    case cancelling
    /// A throttle holds a worker of it: the throttle's name and what it measured.
    case throttled(String)

    /// `running`, `pausing`, `paused`, `cancelling`, or `throttled (replica lag: 12.5 s > 5 s)`.
    public var description: String {
        switch self {
        case .running: "running"
        case .pausing: "pausing"
        case .paused: "paused"
        case .cancelling: "cancelling"
        case .throttled(let reason): "throttled (\(reason))"
        }
    }

    /// The state of `run`, which is in progress, given the stored `controls` and every live worker's
    /// hold; nil for a run that has ended.
    public static func of(_ run: RunHistoryEntry, controls: RunControls, holds: [WorkerHold]) -> OperatingState? {
        guard run.status == .running else { return nil }
        if controls.cancelledRuns.contains(run.id) { return .cancelling }
        let workers = holds.filter { $0.runID == run.id }
        if controls.pause(holding: run.processors) != nil {
            return workers.allSatisfy { $0.hold == .paused } ? .paused : .pausing
        }
        for worker in workers {
            if case .throttled(let reason)? = worker.hold { return .throttled(reason) }
        }
        return .running
    }
}
