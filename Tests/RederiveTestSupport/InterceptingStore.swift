import Rederive
import RederiveSQLite

/// A SQLite store whose claims and commits a test watches or breaks; every other requirement goes
/// straight to the store beneath.
package struct InterceptingStore: RecordStore, StoreReporting {
    package let base: SQLiteStore
    /// Runs before each claim; throwing fails the claim, and sleeping holds it up.
    package var beforeClaim: @Sendable () async throws -> Void
    /// Sees each claimed batch.
    package var afterClaim: @Sendable ([PendingRecord]) -> Void
    /// Sees each batch of pending records listed without claiming them.
    package var afterPendingRecords: @Sendable ([PendingRecord]) -> Void
    /// Runs before each commit; throwing fails the commit.
    package var beforeCommit: @Sendable () throws -> Void
    /// Runs before each count of a pipeline's stale records (`status(of:)`), as a watcher's pass makes.
    package var beforeStatus: @Sendable () throws -> Void
    /// Sees each committed batch of results.
    package var afterCommit: @Sendable ([RecordResult]) -> Void
    /// Whether the store answers its change signals; a store without them cannot be watched.
    package var signalsChanges = true

    package init(
        base: SQLiteStore,
        beforeClaim: @escaping @Sendable () async throws -> Void = {},
        afterClaim: @escaping @Sendable ([PendingRecord]) -> Void = { _ in },
        afterPendingRecords: @escaping @Sendable ([PendingRecord]) -> Void = { _ in },
        beforeCommit: @escaping @Sendable () throws -> Void = {},
        beforeStatus: @escaping @Sendable () throws -> Void = {},
        afterCommit: @escaping @Sendable ([RecordResult]) -> Void = { _ in }
    ) {
        self.base = base
        self.beforeClaim = beforeClaim
        self.afterClaim = afterClaim
        self.afterPendingRecords = afterPendingRecords
        self.beforeCommit = beforeCommit
        self.beforeStatus = beforeStatus
        self.afterCommit = afterCommit
    }

    package func claim(_ plan: RunPlan, limit: Int, byteLimit: Int, lease: WorkerLease) async throws -> [PendingRecord] {
        try await beforeClaim()
        let records = try await base.claim(plan, limit: limit, byteLimit: byteLimit, lease: lease)
        afterClaim(records)
        return records
    }
    package func commit(_ results: [RecordResult], plan: RunPlan, runID: Int64, lease: WorkerLease?) async throws -> CommitOutcome {
        try beforeCommit()
        let outcome = try await base.commit(results, plan: plan, runID: runID, lease: lease)
        afterCommit(results)
        return outcome
    }
    package func prepare(_ pipeline: Pipeline) async throws { try await base.prepare(pipeline) }
    package func startRun(_ plans: [RunPlan], lease: WorkerLease) async throws -> StartedRun {
        try await base.startRun(plans, lease: lease)
    }
    package func finishRun(_ runID: Int64, status: RunStatus, counts: RunCounts, lease: WorkerLease) async throws {
        try await base.finishRun(runID, status: status, counts: counts, lease: lease)
    }
    package func rejoinRun(_ runID: Int64, lease: WorkerLease) async throws {
        try await base.rejoinRun(runID, lease: lease)
    }
    package func staleCount(_ plan: RunPlan) async throws -> Int { try await base.staleCount(plan) }
    package func staleRecords(_ plan: RunPlan, after cursor: Int64?, limit: Int, byteLimit: Int) async throws -> [PendingRecord] {
        let records = try await base.staleRecords(plan, after: cursor, limit: limit, byteLimit: byteLimit)
        afterPendingRecords(records)
        return records
    }
    package func acquireLease(for worker: WorkerIdentity, duration: Duration) async throws -> LeaseAcquisition {
        try await base.acquireLease(for: worker, duration: duration)
    }
    package func renewLease(_ lease: WorkerLease) async throws { try await base.renewLease(lease) }
    package func releaseLease(_ lease: WorkerLease) async throws { try await base.releaseLease(lease) }
    package var preferredClaimSize: Int { base.preferredClaimSize }
    package var preferredBatchDuration: Duration { base.preferredBatchDuration }
    package var logsOutages: Bool { base.logsOutages }
    package var runControl: (any RunControlling)? { base.runControl }
    package var projectionStore: (any ProjectionStoring)? { base.projectionStore }
    package var schemaMigrations: (any SchemaMigrationApplier)? { base.schemaMigrations }
    package var sharedRuns: (any SharedRunReporting)? { base.sharedRuns }
    package var changeSignaling: (any ChangeSignaling)? { signalsChanges ? self : nil }
    package func close() async { await base.close() }
    package func status(of pipeline: Pipeline) async throws -> [ProcessorStatus] {
        try beforeStatus()
        return try await base.status(of: pipeline)
    }
    package func failures(of pipeline: Pipeline, filter: FailureFilter) async throws -> [RecordFailure] {
        try await base.failures(of: pipeline, filter: filter)
    }
    package func invalidate(_ pipeline: Pipeline, processors: [String]?, keys: [String]?) async throws -> Int {
        try await base.invalidate(pipeline, processors: processors, keys: keys)
    }
    package func runs(limit: Int?) async throws -> [RunHistoryEntry] { try await base.runs(limit: limit) }
    package func liveWorkers() async throws -> [WorkerStatus] { try await base.liveWorkers() }
}

extension InterceptingStore: ChangeSignaling {
    package func changeSignals(checkingEvery interval: Duration) -> AsyncStream<Void> { base.changeSignals(checkingEvery: interval) }
    package func restartClaims(_ plan: RunPlan, lease: WorkerLease) { base.restartClaims(plan, lease: lease) }
    package func sweepFreshClaims(_ plan: RunPlan, lease: WorkerLease, lowestInFlight: Int64?) async throws {
        try await base.sweepFreshClaims(plan, lease: lease, lowestInFlight: lowestInFlight)
    }
    package func backlogCount(_ plan: RunPlan) async throws -> Int? { try await base.backlogCount(plan) }
    package func lastRecordID(of pipeline: Pipeline) async throws -> Int64? { try await base.lastRecordID(of: pipeline) }
    package func startWatchRun(_ plans: [RunPlan], lease: WorkerLease, pending: [Int]) async throws -> StartedRun {
        try await base.startWatchRun(plans, lease: lease, pending: pending)
    }
}
