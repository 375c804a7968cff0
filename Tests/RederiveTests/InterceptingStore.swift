import Rederive
import RederiveSQLite

/// A SQLite store whose claims and commits a test watches or breaks; every other requirement goes
/// straight to the store beneath.
struct InterceptingStore: RecordStore, StoreReporting {
    let base: SQLiteStore
    /// Runs before each claim; throwing fails the claim, and sleeping holds it up.
    var beforeClaim: @Sendable () async throws -> Void = {}
    /// Sees each claimed batch.
    var afterClaim: @Sendable ([PendingRecord]) -> Void = { _ in }
    /// Sees each batch of pending records listed without claiming them.
    var afterPendingRecords: @Sendable ([PendingRecord]) -> Void = { _ in }
    /// Runs before each commit; throwing fails the commit.
    var beforeCommit: @Sendable () throws -> Void = {}
    /// Runs before each count of a pipeline's stale records (`status(of:)`), as a watcher's pass makes.
    var beforeStatus: @Sendable () throws -> Void = {}
    /// Sees each committed batch of results.
    var afterCommit: @Sendable ([RecordResult]) -> Void = { _ in }

    func claim(_ plan: RunPlan, limit: Int, byteLimit: Int, lease: WorkerLease) async throws -> [PendingRecord] {
        try await beforeClaim()
        let records = try await base.claim(plan, limit: limit, byteLimit: byteLimit, lease: lease)
        afterClaim(records)
        return records
    }
    func commit(_ results: [RecordResult], plan: RunPlan, runID: Int64, lease: WorkerLease?) async throws -> CommitOutcome {
        try beforeCommit()
        let outcome = try await base.commit(results, plan: plan, runID: runID, lease: lease)
        afterCommit(results)
        return outcome
    }
    func prepare(_ pipeline: Pipeline) async throws { try await base.prepare(pipeline) }
    func startRun(_ plans: [RunPlan], lease: WorkerLease) async throws -> StartedRun {
        try await base.startRun(plans, lease: lease)
    }
    func finishRun(_ runID: Int64, status: RunStatus, counts: RunCounts, lease: WorkerLease) async throws {
        try await base.finishRun(runID, status: status, counts: counts, lease: lease)
    }
    func rejoinRun(_ runID: Int64, lease: WorkerLease) async throws {
        try await base.rejoinRun(runID, lease: lease)
    }
    func pendingCount(_ plan: RunPlan) async throws -> Int { try await base.pendingCount(plan) }
    func pendingRecords(_ plan: RunPlan, after cursor: Int64?, limit: Int, byteLimit: Int) async throws -> [PendingRecord] {
        let records = try await base.pendingRecords(plan, after: cursor, limit: limit, byteLimit: byteLimit)
        afterPendingRecords(records)
        return records
    }
    func acquireLease(for worker: WorkerIdentity, duration: Duration) async throws -> LeaseAcquisition {
        try await base.acquireLease(for: worker, duration: duration)
    }
    func renewLease(_ lease: WorkerLease) async throws { try await base.renewLease(lease) }
    func releaseLease(_ lease: WorkerLease) async throws { try await base.releaseLease(lease) }
    var preferredClaimSize: Int { base.preferredClaimSize }
    var preferredBatchDuration: Duration { base.preferredBatchDuration }
    var logsOutages: Bool { base.logsOutages }
    var runControl: (any RunControlling)? { base.runControl }
    var projectionStore: (any ProjectionStoring)? { base.projectionStore }
    var schemaMigrations: (any SchemaMigrationApplier)? { base.schemaMigrations }
    var sharedRuns: (any SharedRunReporting)? { base.sharedRuns }
    func status(of pipeline: Pipeline) async throws -> [ProcessorStatus] {
        try beforeStatus()
        return try await base.status(of: pipeline)
    }
    func failures(of pipeline: Pipeline, filter: FailureFilter) async throws -> [RecordFailure] {
        try await base.failures(of: pipeline, filter: filter)
    }
    func invalidate(_ pipeline: Pipeline, processors: [String]?, keys: [String]?) async throws -> Int {
        try await base.invalidate(pipeline, processors: processors, keys: keys)
    }
    func runs(limit: Int?) async throws -> [RunHistoryEntry] { try await base.runs(limit: limit) }
    func liveWorkers() async throws -> [WorkerStatus] { try await base.liveWorkers() }
}

extension InterceptingStore: ChangeSignaling {
    func changeSignals(checkingEvery interval: Duration) -> AsyncStream<Void> { base.changeSignals(checkingEvery: interval) }
    func restartClaims(_ plan: RunPlan, lease: WorkerLease) { base.restartClaims(plan, lease: lease) }
    func sweepFreshClaims(_ plan: RunPlan, lease: WorkerLease, lowestInFlight: Int64?) async throws {
        try await base.sweepFreshClaims(plan, lease: lease, lowestInFlight: lowestInFlight)
    }
    func backlogCount(_ plan: RunPlan) async throws -> Int? { try await base.backlogCount(plan) }
    func lastRecordID(of pipeline: Pipeline) async throws -> Int64? { try await base.lastRecordID(of: pipeline) }
    func startWatchRun(_ plans: [RunPlan], lease: WorkerLease, pending: [Int]) async throws -> StartedRun {
        try await base.startWatchRun(plans, lease: lease, pending: pending)
    }
}
