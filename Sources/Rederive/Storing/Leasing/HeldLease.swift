/// The lease a run holds now: the one it started with, or a new one it took after that one was lost.
///
/// A process cut off from the database past its lease's expiry loses the lease and its claims to the
/// others. When it is back, its late commits are rejected (counted as skipped) and its next claim
/// finds the lease lost; it then takes a new lease, when the store gives one, and goes on deriving
/// what is still stale, as a process started then would.
actor HeldLease {
    private(set) var current: WorkerLease
    /// Every lease the run held, to release at its end.
    private(set) var all: [WorkerLease]
    private var replacing: Task<WorkerLease?, any Error>?
    /// The run the lease derives, once recorded: a new lease rejoins it.
    private(set) var runID: Int64?

    init(_ lease: WorkerLease) {
        current = lease
        all = [lease]
    }

    /// Notes the run the lease derives.
    func derive(run runID: Int64?) {
        self.runID = runID
    }

    /// The lease to claim with after `lost` was found lost: a new one, taken once however many
    /// workers ask; nil when the store's lease is another process's now.
    func replace(_ lost: WorkerLease, acquire: @escaping @Sendable () async throws -> LeaseAcquisition) async throws -> WorkerLease? {
        if current.token != lost.token { return current }
        if let replacing { return try await replacing.value }
        let task = Task<WorkerLease?, any Error> {
            guard case .acquired(let fresh) = try await acquire() else { return nil }
            return fresh
        }
        replacing = task
        defer { replacing = nil }
        guard let fresh = try await task.value else { return nil }
        current = fresh
        all.append(fresh)
        return fresh
    }
}
