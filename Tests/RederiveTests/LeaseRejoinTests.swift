import Foundation
import GRDB
import Rederive
import RederiveSQLite
import RederiveTestSupport
import Synchronization
import Testing

/// A run that finds its lease lost (it was cut off past the expiry, and its records were taken over)
/// takes a new lease and goes on, unless another process holds the store's lease now.
@Suite("Losing the lease mid-run", .timeLimit(.minutes(5)))
struct LeaseRejoinTests {
    /// A store whose lease is taken away (its row deleted, as a reaper does) before the claim number
    /// `lostAt`, and which then says so, as a store that checks its lease on every claim does.
    static func losingTheLease(_ base: SQLiteStore, path: String, at lostAt: Int, takenBy other: WorkerIdentity? = nil) -> InterceptingStore {
        let claims = Mutex(0)
        var store = InterceptingStore(base: base)
        store.beforeClaim = {
            let count = claims.withLock { $0 += 1; return $0 }
            guard count == lostAt else { return }
            var configuration = Configuration()
            configuration.busyMode = .timeout(30)
            try DatabaseQueue(path: path, configuration: configuration).write { db in
                try db.execute(sql: "DELETE FROM rederive_leases")
                if let other {
                    try db.execute(sql: """
                        INSERT INTO rederive_leases (name, holder, host, process_id, token, acquired_at, renewed_at, expires_at)
                        SELECT 'runner', ?, ?, ?, 'other', 0, 0, ?
                        """, arguments: [other.description, other.host, other.processID, Date().timeIntervalSince1970 + 600])
                }
            }
            throw RederiveError(.leaseLost, "the lease expired and its records were taken over")
        }
        return store
    }

    /// Runs 200 records with three workers on a store that loses the lease at the fourth claim, to
    /// `other` when given; `check` sees the run's outcome and the store beneath.
    static func runLosingTheLease(
        takenBy other: WorkerIdentity? = nil, _ check: (Result<RunSummary, any Error>, SQLiteStore, String) async throws -> Void
    ) async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(200), into: path)
            let base = try SQLiteStore(path: path)
            var configuration = Runner.Configuration(parallelism: 3, batchSize: 10)
            configuration.claimSize = 5
            let store = losingTheLease(base, path: path, at: 4, takenBy: other)
            let runner = Runner(store: store, pipelines: [test.pipeline], configuration: configuration)
            let outcome: Result<RunSummary, any Error>
            do {
                outcome = .success(try await runner.run())
            } catch {
                outcome = .failure(error)
            }
            try await check(outcome, base, path)
        }
    }

    @Test func aRunWhoseLeaseWasReapedTakesANewOneAndDerivesEveryRecordOnce() async throws {
        try await Self.runLosingTheLease { outcome, base, path in
            let summary = try outcome.get()
            #expect(summary.status == .completed)
            #expect(summary.counts.changed == 200 && summary.counts.skipped == 0, "\(summary.counts)")
            #expect(try await base.status(of: TestPipeline().pipeline).allSatisfy { $0.upToDate == 200 })
            // Both leases were given back.
            let leases = try await DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM rederive_leases") }
            #expect(leases == 0)
        }
    }

    @Test func aRunWhoseLeaseAnotherProcessTookStopsWithTheLeaseLost() async throws {
        try await Self.runLosingTheLease(takenBy: WorkerIdentity(host: "elsewhere", processID: 4242)) { outcome, base, _ async throws in
            #expect(throws: RederiveError.self) { try outcome.get() }
            #expect(try await base.runs(limit: 1).first?.status == .failed)
        }
    }
}
