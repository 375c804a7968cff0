import Foundation
import GRDB
import Rederive
import RederiveMemory
import RederiveCodec
import RederiveSQLite
import RederiveTestSupport
import RederiveWatch
import Synchronization
import Testing

/// A watcher's configuration for tests: two workers, quick signals, a short lease and quiet period.
func watchConfiguration(parallelism: Int = 2) -> Watcher.Configuration {
    var configuration = Watcher.Configuration(runner: Runner.Configuration(parallelism: parallelism, batchSize: 50))
    configuration.runner.leaseDuration = .seconds(3)
    configuration.signalInterval = .milliseconds(5)
    configuration.pollInterval = .seconds(30)
    configuration.quietPeriod = .milliseconds(300)
    return configuration
}

/// Runs `watcher` in a task while `body` acts on the database, then stops it as SIGTERM would and
/// waits for it to return.
func whileWatching(_ watcher: Watcher, _ body: () async throws -> Void) async throws {
    let task = Task { try await watcher.run() }
    do {
        try await body()
    } catch {
        task.cancel()
        _ = try? await task.value
        throw error
    }
    task.cancel()
    try await task.value
}

@Suite("Watcher")
struct WatcherTests {
    @Test func recordsInsertedByAnotherConnectionAreDerivedWithoutARun() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            let inspection = Inspection(path: path)
            let watcher = Watcher(store: try SQLiteStore(path: path), pipelines: [test.pipeline], configuration: watchConfiguration())
            try await whileWatching(watcher) {
                try insertRecords(samples(20), into: path)
                #expect(await eventually(within: 60) {
                    (try? inspection.count("SELECT count(*) FROM items_derived WHERE total IS NOT NULL")) == 20
                })
                // Another program replaces a payload: the watcher derives it again.
                try replacePayload(key: "k3", json: sampleJSON("changed", [10, 20]), in: path)
                #expect(await eventually(within: 60) {
                    (try? inspection.value("total", key: "k3", as: Double.self)) == 30
                })
            }
            #expect(test.log.total("total") == 21)
            #expect(test.log.count("total", "changed") == 1)
            // Stopped: the lease is free, and the run it recorded ended.
            #expect(try inspection.count("SELECT count(*) FROM rederive_leases") == 0)
            #expect(try inspection.count("SELECT count(*) FROM rederive_runs WHERE status = 'running'") == 0)
            #expect(try inspection.count("SELECT sum(derived) FROM rederive_runs") == 21)
        }
    }

    @Test func aNewLogicVersionAndAnInvalidationAreDerivedAsTheyAppear() async throws {
        try await withTemporaryDatabase { path in
            try await prepare(TestPipeline().pipeline, at: path)
            try insertRecords(samples(30), into: path)
            _ = try await run(TestPipeline().pipeline, at: path)
            let bumped = TestPipeline(statsVersion: 2)
            let inspection = Inspection(path: path)
            let watcher = Watcher(store: try SQLiteStore(path: path), pipelines: [bumped.pipeline], configuration: watchConfiguration())
            try await whileWatching(watcher) {
                #expect(await eventually(within: 60) { bumped.log.total("stats") == 30 })
                // `invalidate` from another process marks records stale: derived again.
                let other = try SQLiteStore(path: path)
                #expect(try await other.invalidate(bumped.pipeline, processors: ["total"], keys: ["k1", "k2"]) == 2)
                #expect(await eventually(within: 60) { bumped.log.total("total") == 2 })
            }
            #expect(bumped.log.total("stats") == 30)
            #expect(try inspection.count("SELECT count(*) FROM rederive_stamps WHERE current = 1 AND processor = 'stats' AND version = 2") == 30)
        }
    }

    @Test(.timeLimit(.minutes(1))) func aStoreThatSignalsNoChangesIsRefusedBeforeAnythingIsTaken() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            var store = InterceptingStore(base: try SQLiteStore(path: path))
            store.signalsChanges = false
            let watcher = Watcher(store: store, pipelines: [test.pipeline], configuration: watchConfiguration())
            let error = await #expect(throws: RederiveError.self) { try await watcher.run() }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message.contains("does not signal changes") == true)
            #expect(try Inspection(path: path).count("SELECT count(*) FROM rederive_leases") == 0)
        }
    }

    @Test func theInMemoryStoreSignalsItsChanges() async throws {
        let test = TestPipeline()
        let store = MemoryStore()
        try await store.prepare(test.pipeline)
        let watcher = Watcher(store: store, pipelines: [test.pipeline], configuration: watchConfiguration())
        try await whileWatching(watcher) {
            var ids: [Int64] = []
            for (key, json) in samples(5) {
                ids.append(try store.insert(Array(json.utf8), key: key, into: test.pipeline))
            }
            #expect(await eventually(within: 60) { test.log.total("total") == 5 })
            try store.replacePayload(of: ids[0], in: test.pipeline, with: Array(sampleJSON("again", [1]).utf8))
            #expect(await eventually(within: 60) { test.log.count("total", "again") == 1 })
        }
        #expect(test.log.total("total") == 6)
        #expect(try await store.liveWorkers().isEmpty)
    }
}

/// The records of ``samples(_:)`` (labels "s…") as a backlog a test pipeline derives slowly, 2 ms
/// each, counted as they are derived; other records are derived at full speed.
final class SlowedBacklog: Sendable {
    private let derived = Atomic<Int>(0)

    /// The backlog's records derived so far.
    var count: Int { derived.load(ordering: .relaxed) }

    /// A test pipeline's `onTotal`: slows and counts a backlog record.
    @Sendable func derive(_ sample: Sample) {
        guard sample.label.hasPrefix("s") else { return }
        derived.add(1, ordering: .relaxed)
        usleep(2_000)
    }
}

@Suite("Watcher: fresh records first")
struct FreshFirstTests {
    @Test func recordsWrittenDuringABacklogAreDerivedAheadOfIt() async throws {
        try await withTemporaryDatabase { path in
            try await prepare(TestPipeline().pipeline, at: path)
            try insertRecords(samples(3_000), into: path)
            _ = try await run(TestPipeline().pipeline, at: path)
            // Version 2 of `total` makes every record stale: a backlog, slowed to 2 ms a record.
            let backlog = SlowedBacklog()
            let bumped = TestPipeline(totalVersion: 2, onTotal: backlog.derive)
            let watcher = Watcher(store: try SQLiteStore(path: path), pipelines: [bumped.pipeline], configuration: watchConfiguration())
            let inspection = Inspection(path: path)
            var backlogWhenFreshDone = 0
            try await whileWatching(watcher) {
                #expect(await eventually(within: 60) { backlog.count > 100 })
                try insertRecords((0..<5).map { ("new\($0)", sampleJSON("fresh\($0)", [1, 2])) }, into: path)
                try replacePayload(key: "k2999", json: sampleJSON("rewritten", [5]), in: path)
                #expect(await eventually(within: 60) {
                    (try? inspection.count("""
                        SELECT count(*) FROM items i JOIN items_derived d ON d.id = i.id
                        WHERE (i.key LIKE 'new%' AND d.total = 3) OR (i.key = 'k2999' AND d.total = 5)
                        """)) == 6
                })
                backlogWhenFreshDone = backlog.count
                #expect(await eventually(within: 120) { bumped.log.total("total") == 3_005 })
            }
            // The fresh records did not wait for the backlog: most of it was still to come.
            #expect(backlogWhenFreshDone < 2_500, "\(backlogWhenFreshDone) backlog records were derived before the fresh ones")
            // Nothing was derived twice.
            #expect(bumped.log.all.values.allSatisfy { $0 == 1 }, "\(bumped.log.all.filter { $0.value > 1 })")
            #expect(try inspection.count("SELECT count(*) FROM rederive_stamps WHERE processor = 'total' AND version = 2 AND current = 1") == 3_005)
        }
    }
}

extension FreshFirstTests {
    @Test func recordsWrittenBesideANeverDerivedTableAreDerivedAheadOfIt() async throws {
        try await withTemporaryDatabase { path in
            try await prepare(TestPipeline().pipeline, at: path)
            // A table no run derived: every record is fresh, slowed to 2 ms a record.
            try insertRecords(samples(3_000), into: path)
            let backlog = SlowedBacklog()
            let test = TestPipeline(onTotal: backlog.derive)
            let watcher = Watcher(store: try SQLiteStore(path: path), pipelines: [test.pipeline], configuration: watchConfiguration())
            let inspection = Inspection(path: path)
            var backlogWhenNewDone = 0
            try await whileWatching(watcher) {
                #expect(await eventually(within: 60) { backlog.count > 100 })
                try insertRecords((0..<5).map { ("new\($0)", sampleJSON("fresh\($0)", [1, 2])) }, into: path)
                #expect(await eventually(within: 60) {
                    (try? inspection.count("""
                        SELECT count(*) FROM items i JOIN items_derived d ON d.id = i.id WHERE i.key LIKE 'new%' AND d.total = 3
                        """)) == 5
                })
                backlogWhenNewDone = backlog.count
                #expect(await eventually(within: 120) { test.log.total("total") == 3_005 })
            }
            // The new records did not queue behind the never-derived ones, which come first by id.
            #expect(backlogWhenNewDone < 2_500, "\(backlogWhenNewDone) never-derived records were derived before the new ones")
            // The drain and the records claimed ahead of it never shared a record.
            #expect(test.log.all.values.allSatisfy { $0 == 1 }, "\(test.log.all.filter { $0.value > 1 })")
            #expect(try inspection.count("SELECT count(*) FROM rederive_stamps WHERE processor = 'total' AND current = 1") == 3_005)
        }
    }

    @Test func recordsWrittenWhileTheWatcherFirstCountsANeverDerivedTableAreDerivedAheadOfIt() async throws {
        try await withTemporaryDatabase { path in
            try await prepare(TestPipeline().pipeline, at: path)
            try insertRecords(samples(3_000), into: path)
            let backlog = SlowedBacklog()
            let test = TestPipeline(onTotal: backlog.derive)
            // The app writes while the watcher first counts what is stale: after the watcher started.
            let counted = Atomic<Bool>(false)
            var store = InterceptingStore(base: try SQLiteStore(path: path))
            store.beforeStatus = {
                guard !counted.exchange(true, ordering: .relaxed) else { return }
                try insertRecords((0..<5).map { ("new\($0)", sampleJSON("fresh\($0)", [1, 2])) }, into: path)
            }
            let watcher = Watcher(store: store, pipelines: [test.pipeline], configuration: watchConfiguration())
            var backlogWhenNewDone = 0
            try await whileWatching(watcher) {
                #expect(await eventually(within: 60) { (0..<5).allSatisfy { test.log.count("total", "fresh\($0)") == 1 } })
                backlogWhenNewDone = backlog.count
                #expect(await eventually(within: 120) { test.log.total("total") == 3_005 })
            }
            #expect(backlogWhenNewDone < 2_500, "\(backlogWhenNewDone) never-derived records were derived before the new ones")
            #expect(test.log.all.values.allSatisfy { $0 == 1 }, "\(test.log.all.filter { $0.value > 1 })")
        }
    }

    @Test func onTheInMemoryStoreRecordsWrittenBesideANeverDerivedTableAreDerivedAheadOfIt() async throws {
        let backlog = SlowedBacklog()
        let test = TestPipeline(onTotal: backlog.derive)
        let store = MemoryStore()
        try await store.prepare(test.pipeline)
        for (key, json) in samples(2_000) {
            _ = try store.insert(Array(json.utf8), key: key, into: test.pipeline)
        }
        let watcher = Watcher(store: store, pipelines: [test.pipeline], configuration: watchConfiguration())
        var backlogWhenNewDone = 0
        try await whileWatching(watcher) {
            #expect(await eventually(within: 60) { backlog.count > 100 })
            for index in 0..<5 {
                _ = try store.insert(Array(sampleJSON("fresh\(index)", [1, 2]).utf8), key: "new\(index)", into: test.pipeline)
            }
            #expect(await eventually(within: 60) { (0..<5).allSatisfy { test.log.count("total", "fresh\($0)") == 1 } })
            backlogWhenNewDone = backlog.count
            #expect(await eventually(within: 120) { test.log.total("total") == 2_005 })
        }
        #expect(backlogWhenNewDone < 1_500, "\(backlogWhenNewDone) never-derived records were derived before the new ones")
        #expect(test.log.all.values.allSatisfy { $0 == 1 }, "\(test.log.all.filter { $0.value > 1 })")
    }
}

@Suite("Watcher: outages")
struct WatcherOutageTests {
    @Test func anAppHoldingTheWriteLockMakesTheWatcherWaitNotFail() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            let health = WatchHealth()
            // A busy timeout far shorter than the lock is held: every commit meanwhile fails with SQLITE_BUSY.
            let watcher = Watcher(
                store: try SQLiteStore(path: path, busyTimeout: 0.1), pipelines: [test.pipeline],
                configuration: watchConfiguration(), health: health
            )
            let task = Task { try await watcher.run() }
            #expect(await eventually(within: 60) { health.snapshot.isReady })
            let app = try appConnection(path)
            // The app writes records and keeps its transaction, and the write lock, until the watcher's
            // lease renewals have failed for want of it: the watcher then says it is not ready.
            // On a thread of its own: it blocks while it waits, which on the cooperative pool would stall
            // the watcher and every other test of the process with it.
            let holding = Task {
                try await BlockingWork.run {
                    try app.inTransaction(.immediate) { db in
                        for (key, json) in samples(10) {
                            try db.execute(
                                sql: "INSERT INTO items (key, payload) VALUES (?, ?)",
                                arguments: [key, Data(PayloadCodec.encode(Array(json.utf8)))]
                            )
                        }
                        return eventually(within: 60) { !health.snapshot.databaseReachable } ? .commit : .rollback
                    }
                }
            }
            try await holding.value
            #expect(try Inspection(path: path).count("SELECT count(*) FROM items") == 10, "the watcher never said it was not ready")
            #expect(await eventually(within: 60) { test.log.total("total") == 10 })
            #expect(await eventually(within: 60) { health.snapshot.isReady })
            task.cancel()
            try await task.value
            #expect(!health.snapshot.leaseHeld)
        }
    }
}
