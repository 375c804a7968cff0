import Foundation

/// The requests that hold or end work, as a store keeps them: what every worker reads once per
/// heartbeat, and what `rederive status` shows.
public struct RunControls: Sendable, Hashable {
    /// One `rederive pause`, in force until `rederive resume` lifts it.
    public struct Pause: Sendable, Hashable {
        /// What it holds.
        public let scope: ControlScope
        /// When it was asked for.
        public let requestedAt: Date
        /// Who asked for it, as `pid 4711 on build-3`.
        public let requestedBy: String

        /// A pause as a store reads it back.
        public init(scope: ControlScope, requestedAt: Date, requestedBy: String) {
            self.scope = scope
            self.requestedAt = requestedAt
            self.requestedBy = requestedBy
        }
    }

    /// The pauses in force, in the order they were asked for.
    public var pauses: [Pause]
    /// The runs still in progress that `rederive cancel` asked to end.
    public var cancelledRuns: Set<Int64>

    /// Controls as a store reads them; none by default.
    public init(pauses: [Pause] = [], cancelledRuns: Set<Int64> = []) {
        self.pauses = pauses
        self.cancelledRuns = cancelledRuns
    }

    /// The first pause that holds a run or pass of `plan`, if any.
    public func pause(holding plan: RunPlan) -> Pause? {
        pauses.first { $0.scope.covers(plan) }
    }

    /// The first pause that holds a run deriving `processors`, if any.
    public func pause(holding processors: [ProcessorVersion]) -> Pause? {
        pauses.first { $0.scope.covers(processors: processors) }
    }
}
