import Rederive

/// The in-memory store has no query language, no log and no standby: its throttles are the app's own.
extension MemoryStore: HealthSignals {
    /// Throws: the in-memory store runs no SQL.
    public func conditionHolds(_ sql: String) async throws -> Bool {
        throw RederiveError(.invalidArgument, "the in-memory store runs no queries, so it cannot pause while \(sql) holds; give the runner a throttle of the app's own instead")
    }

    /// None: nothing is logged.
    public func uncheckpointedLogSize() async throws -> Int? { nil }

    /// None: nothing is replicated.
    public func replicaLag() async throws -> Duration? { nil }
}
