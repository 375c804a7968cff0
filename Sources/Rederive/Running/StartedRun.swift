/// The run a process derives, as ``RecordStore/startRun(_:lease:)`` recorded or joined it.
public struct StartedRun: Sendable, Hashable {
    /// The run's id in the store's history.
    public let id: Int64
    /// Per plan, in the order the plans were given, how many records it has pending: counted when the
    /// run was started, or what is left of that count when the process joined a run others derive.
    public let pending: [Int]

    /// A run and its plans' pending records.
    public init(id: Int64, pending: [Int]) {
        self.id = id
        self.pending = pending
    }
}

extension RunPlan {
    /// The processors and versions a run of `plans` derives, as its history records them.
    public static func processorVersions(of plans: [RunPlan]) -> [ProcessorVersion] {
        plans.flatMap { plan in
            plan.processors.map { ProcessorVersion(pipeline: plan.pipeline.name, name: $0.name, version: $0.version) }
        }
    }
}
