import Foundation
import Rederive
import RederiveCodec
import RederiveSQLite
import RederiveTestSupport
import Synchronization
import Testing

/// Runs `pipeline` with 2 workers, batches of 5 and a 200 ms record timeout, while one record hangs;
/// once the other `othersDone` records are committed and the hang is reported, the user presses Ctrl-C.
func runCancelledOnceTheHangIsReported(_ pipeline: Pipeline, at path: String, othersDone: Int, claimSize: Int? = nil) async throws -> RunSummary {
    let progress = WatchingProgress { event in
        if case .advanced(let progress) = event { progress.done == othersDone && !progress.overdue.isEmpty } else { false }
    }
    var configuration = Runner.Configuration(parallelism: 2, batchSize: 5)
    if let claimSize { configuration.claimSize = claimSize }
    configuration.recordTimeout = .milliseconds(200)
    let runner = Runner(store: try SQLiteStore(path: path), pipelines: [pipeline], configuration: configuration, progress: progress)
    let task = Task { try await runner.run() }
    progress.task.withLock { $0 = task }
    return try await task.value
}

/// Keeps the progress events and cancels the run's task when an event matches.
final class WatchingProgress: ProgressReporter {
    let events = InMemoryProgress()
    let task = Mutex<Task<RunSummary, any Error>?>(nil)
    private let cancelWhen: @Sendable (ProgressEvent) -> Bool

    init(cancelWhen: @escaping @Sendable (ProgressEvent) -> Bool = { _ in false }) {
        self.cancelWhen = cancelWhen
    }

    func report(_ event: ProgressEvent) {
        events.report(event)
        if cancelWhen(event) {
            task.withLock { $0?.cancel() }
        }
    }

    var committed: Int {
        events.events.reduce(0) { done, event in
            if case .advanced(let progress) = event { max(done, progress.done) } else { done }
        }
    }
}

@Suite("Claiming runner", .timeLimit(.minutes(5)))
struct ClaimingRunnerTests {
    @Test func manyWorkersWithSmallClaimsDeriveEveryRecordExactlyOnce() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(600), into: path)
            var configuration = Runner.Configuration(parallelism: 8, batchSize: 25)
            configuration.claimSize = 3
            let summary = try await run(test.pipeline, at: path, configuration)
            #expect(summary.counts == RunCounts(changed: 600))
            #expect(test.log.all.count == 1_200)
            #expect(test.log.all.values.allSatisfy { $0 == 1 })
        }
    }

    @Test func workersThatOutpaceTheWriterWaitForRoomAndLoseNoResult() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(300), into: path)
            // Commits of one record hold two results at most between them: the workers' threads wait
            // for room far more often than they find it.
            let summary = try await run(test.pipeline, at: path, Runner.Configuration(parallelism: 4, batchSize: 1))
            #expect(summary.counts == RunCounts(changed: 300))
            #expect(test.log.all.count == 600)
            #expect(test.log.all.values.allSatisfy { $0 == 1 })
            #expect(try await SQLiteStore(path: path).staleCount(RunPlan(pipeline: test.pipeline)) == 0)
        }
    }

    @Test func aSlowRecordHoldsUpOnlyItsOwnWorker() async throws {
        try await withTemporaryDatabase { path in
            let progress = WatchingProgress()
            var test = TestPipeline()
            let othersCommitted = Mutex(false)
            // The first record's worker waits until the other worker has committed 100 records: with a
            // barrier per batch, nothing after the first batch could commit and this would time out.
            test.onTotal = { sample in
                if sample.label == "s0" {
                    othersCommitted.withLock { $0 = eventually(within: 240) { progress.committed >= 100 } }
                }
            }
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(200), into: path)
            var configuration = Runner.Configuration(parallelism: 2, batchSize: 10)
            configuration.claimSize = 5
            let summary = try await run(test.pipeline, at: path, configuration, progress: progress)
            #expect(othersCommitted.withLock { $0 })
            #expect(summary.counts == RunCounts(changed: 200))
        }
    }

    @Test func aSecondRunWaitsForTheFirstAndDerivesNothingTwice() async throws {
        try await withTemporaryDatabase { path in
            var test = TestPipeline()
            let secondIsWaiting = Mutex(false)
            let second = WatchingProgress()
            // The first run holds its first record until the second run reports that it waits.
            test.onTotal = { sample in
                if sample.label == "s0" {
                    secondIsWaiting.withLock {
                        $0 = eventually(within: 240) {
                            second.events.events.contains { if case .waiting = $0 { true } else { false } }
                        }
                    }
                }
            }
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(100), into: path)
            var configuration = Runner.Configuration(parallelism: 2, batchSize: 10)
            configuration.leasePollInterval = .milliseconds(20)
            // Long enough that a machine busy with the rest of the suite cannot let it lapse mid-test.
            configuration.leaseDuration = .seconds(120)

            // Two stores on one file: two processes as far as SQLite and the lease are concerned.
            let firstRunner = Runner(store: try SQLiteStore(path: path), pipelines: [test.pipeline], configuration: configuration)
            var secondRunner = Runner(
                store: try SQLiteStore(path: path), pipelines: [test.pipeline], configuration: configuration, progress: second
            )
            secondRunner.worker = WorkerIdentity(host: "second", processID: 2)
            async let first = firstRunner.run()
            // Start the second once the first holds the lease, i.e. has begun its run.
            #expect(await eventually(within: 240) { test.log.total("total") > 0 })
            let secondSummary = try await secondRunner.run()
            let firstSummary = try await first

            #expect(secondIsWaiting.withLock { $0 })
            #expect(firstSummary.counts == RunCounts(changed: 100))
            #expect(secondSummary.pending == 0)
            #expect(test.log.all.values.allSatisfy { $0 == 1 })
            let waiting = second.events.events.compactMap { event -> LeaseHolder? in
                if case .waiting(let holder) = event { holder } else { nil }
            }
            #expect(waiting.count == 1)
            #expect(waiting.first?.worker == WorkerIdentity.current.description)
        }
    }

    @Test func aLeaseLeftByAKilledProcessHoldsOthersOffUntilItExpires() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(10), into: path)
            let store = try SQLiteStore(path: path)
            // Taken and never released nor renewed, as by a process killed with SIGKILL.
            let dead = WorkerIdentity(host: "gone", processID: 99)
            // Ten minutes: long enough that no load on the machine lets it expire before it is checked.
            guard case .acquired = try await store.acquireLease(for: dead, duration: .seconds(600)) else {
                Issue.record("the lease was not free")
                return
            }
            let early = try await SQLiteStore(path: path).acquireLease(for: .current, duration: .seconds(15))
            guard case .held(let holder) = early else {
                Issue.record("a live lease was taken over: \(early)")
                return
            }
            #expect(holder.worker == dead.description)
            #expect(holder.expiresIn > 0 && holder.expiresIn <= 600)

            // Ten minutes later, as far as the lease is concerned.
            try appExecute(path, "UPDATE rederive_leases SET expires_at = expires_at - 601")
            var configuration = Runner.Configuration(parallelism: 2)
            configuration.leasePollInterval = .milliseconds(20)
            let summary = try await Runner(store: store, pipelines: [test.pipeline], configuration: configuration).run()
            #expect(summary.counts == RunCounts(changed: 10))
        }
    }

    @Test func aLeaseLeftByAnEndedProcessOfThisHostIsTakenOverAtOnce() async throws {
        try await withTemporaryDatabase { path in
            let ended = Process()
            ended.executableURL = URL(fileURLWithPath: "/bin/true")
            try ended.run()
            ended.waitUntilExit()
            let gone = WorkerIdentity(host: WorkerIdentity.current.host, processID: ended.processIdentifier)
            #expect(gone.hasEndedOnThisHost)
            #expect(!WorkerIdentity.current.hasEndedOnThisHost)
            #expect(!WorkerIdentity(host: "elsewhere", processID: ended.processIdentifier).hasEndedOnThisHost)

            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            let store = try SQLiteStore(path: path)
            guard case .acquired = try await store.acquireLease(for: gone, duration: .seconds(600)) else {
                Issue.record("the lease was not free")
                return
            }
            let next = try await SQLiteStore(path: path).acquireLease(for: .current, duration: .seconds(15))
            guard case .acquired(let lease) = next else {
                Issue.record("a lease of an ended process held a run off: \(next)")
                return
            }
            #expect(lease.worker == .current)
        }
    }

    @Test func aCommitAfterTheLeaseWasTakenOverIsRejectedWhole() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(4), into: path)
            let late = try SQLiteStore(path: path)
            let other = try SQLiteStore(path: path)
            guard case .acquired(let lost) = try await late.acquireLease(for: .current, duration: .milliseconds(50)) else {
                Issue.record("the lease was not free")
                return
            }
            let plan = RunPlan(pipeline: test.pipeline)
            let claimed = try await late.claim(plan, limit: 10, byteLimit: 1 << 20, lease: lost)
            #expect(claimed.count == 4)
            let results = claimed.map { RecordResult(evaluating: $0, pipeline: test.pipeline, codec: .init()) }

            try await Task.sleep(for: .milliseconds(100))
            guard case .acquired(let taken) = try await other.acquireLease(for: .init(host: "other", processID: 7), duration: .seconds(30)) else {
                Issue.record("an expired lease was not taken over")
                return
            }
            await #expect(performing: {
                _ = try await late.commit(results, plan: plan, runID: 1, lease: lost)
            }, throws: { ($0 as? RederiveError)?.code == .leaseLost })
            await #expect(performing: { try await late.renewLease(lost) }, throws: { ($0 as? RederiveError)?.code == .leaseLost })
            #expect(try Inspection(path: path).count("SELECT count(*) FROM rederive_stamps") == 0)
            // The new holder commits the same results.
            #expect(try await other.commit(results, plan: plan, runID: 1, lease: taken).counts == RunCounts(changed: 4))
            try await other.releaseLease(taken)
            #expect(try Inspection(path: path).count("SELECT count(*) FROM rederive_leases") == 0)
        }
    }

    @Test func aRecordThatHangsIsNamedInProgressAndInTheSummary() async throws {
        try await withTemporaryDatabase { path in
            let release = Mutex(false)
            var test = TestPipeline()
            // Loops until the test ends it, like a processor stuck in an endless loop.
            test.onTotal = { sample in
                if sample.label == "s3" {
                    while !release.withLock({ $0 }) { Thread.sleep(forTimeInterval: 0.005) }
                }
            }
            defer { release.withLock { $0 = true } }
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(30), into: path)
            let hungID = try Inspection(path: path).count("SELECT id FROM items WHERE key = 'k3'")
            let summary = try await runCancelledOnceTheHangIsReported(test.pipeline, at: path, othersDone: 29)

            #expect(summary.status == .interrupted)
            #expect(summary.counts == RunCounts(changed: 29))
            #expect(summary.overdue.map(\.recordID) == [Int64(hungID)])
            #expect(summary.overdue.first.map { $0.elapsed >= .milliseconds(200) } == true)
        }
    }
}

/// A store whose claims or commits start failing after some calls, as when the disk fills or the
/// server goes away.
enum FailingStore {
    struct Broken: Error {}

    static func make(_ base: SQLiteStore, failClaimAfter: Int? = nil, failCommitAfter: Int? = nil) -> InterceptingStore {
        let calls = Calls()
        var store = InterceptingStore(base: base)
        store.beforeClaim = {
            let count = calls.counts.withLock { $0.claims += 1; return $0.claims }
            if let failClaimAfter, count > failClaimAfter { throw Broken() }
        }
        store.beforeCommit = {
            let count = calls.counts.withLock { $0.commits += 1; return $0.commits }
            if let failCommitAfter, count > failCommitAfter { throw Broken() }
        }
        return store
    }

    private final class Calls: Sendable {
        let counts = Mutex((claims: 0, commits: 0))
    }
}

@Suite("Claiming runner failures", .timeLimit(.minutes(5)))
struct ClaimingRunnerFailureTests {
    @Test(arguments: [(3, nil), (nil, 2)] as [(Int?, Int?)])
    func aStoreThatFailsEndsTheRunWithItsErrorAndReleasesTheLease(claimsBeforeFailing: Int?, commitsBeforeFailing: Int?) async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(300), into: path)
            let base = try SQLiteStore(path: path)
            let store = FailingStore.make(base, failClaimAfter: claimsBeforeFailing, failCommitAfter: commitsBeforeFailing)
            var configuration = Runner.Configuration(parallelism: 4, batchSize: 10)
            configuration.claimSize = 5
            configuration.commitInterval = .milliseconds(1)
            await #expect(throws: FailingStore.Broken.self) {
                _ = try await Runner(store: store, pipelines: [test.pipeline], configuration: configuration).run()
            }
            #expect(try await base.runs(limit: 1).first?.status == .failed)
            // The lease was given back: the next run starts at once and derives the rest.
            let next = try await Runner(store: base, pipelines: [test.pipeline]).run()
            #expect(next.counts.changed + (try await base.runs(limit: 2).last?.counts.changed ?? 0) == 300)
        }
    }
}
