/// Why a rollback leaves a kept entry as it is. The cases are in the order a ``RollbackPlan`` tests
/// them: an entry that meets several is reported with the first.
public enum RollbackSkip: Sendable, Hashable {
    /// The record is no longer in its table.
    case recordDeleted
    /// The record's payload changed since the run's last write of it: its values are stale whatever
    /// they are.
    case payloadChanged
    /// A later run changed the values again; that run, the newest such, is to be rolled back first.
    case changedAgain(by: Int64)
    /// The record no longer has a stamp of the processor, so nothing says what its values are.
    case stampRemoved
    /// The pipeline rolled back no longer declares the processor.
    case processorRemoved

    /// The first reason, in order, to leave `entry` of run `runID` as it is; nil when it is put back.
    static func first(for entry: StoredRollbackEntry, run runID: Int64, payloadUnchanged: Bool, in pipeline: Pipeline) -> RollbackSkip? {
        if entry.currentGeneration == nil { return .recordDeleted }
        if !payloadUnchanged { return .payloadChanged }
        if let later = entry.newestLaterChange, later > runID { return .changedAgain(by: later) }
        if !entry.hasStamp { return .stampRemoved }
        if pipeline.processor(named: entry.processor) == nil { return .processorRemoved }
        return nil
    }

    /// The reason as a rollback report words it, for an entry of `processor` and run `runID`.
    public func reason(run runID: Int64, processor: String) -> String {
        switch self {
        case .recordDeleted: "the record was deleted"
        case .payloadChanged: "its payload changed since run \(runID)"
        case .changedAgain(let later): "run \(later) changed it again; roll that run back first"
        case .stampRemoved: "its stamp was removed since run \(runID)"
        case .processorRemoved: "the pipeline no longer has processor \"\(processor)\""
        }
    }
}
