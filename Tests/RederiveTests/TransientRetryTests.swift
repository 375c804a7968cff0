import Logging
import Rederive
import RederiveSQLite
import RederiveTestSupport
import Synchronization
import Testing

/// A claim or a commit that fails for a reason of the moment is tried again with a backoff, and never
/// becomes a failure of the records it held; what the record itself causes still does.
@Suite("Transient errors are tried again", .timeLimit(.minutes(3)))
struct TransientRetryTests {
    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test func aTransientErrorIsTriedAgainUntilTheOperationSucceeds() async throws {
        let attempts = Mutex(0)
        let retries = Mutex<[String]>([])
        // A limit no loaded machine reaches: what is tested is the retries, not the limit.
        let retry = TransientRetry(limit: .seconds(900), logger: Self.quiet) { operation, _ in retries.withLock { $0.append(operation) } }
        let value = try await retry.run("commit") {
            let attempt = attempts.withLock { $0 += 1; return $0 }
            if attempt < 4 { throw RederiveError(.database, "locked", transient: true) }
            return attempt
        }
        #expect(value == 4)
        #expect(retries.withLock { $0 } == ["commit", "commit", "commit"])
    }

    @Test func anErrorThatIsNotTransientIsThrownAtOnce() async throws {
        let attempts = Mutex(0)
        let retry = TransientRetry(limit: .seconds(30), logger: Self.quiet) { _, _ in }
        await #expect(throws: RederiveError.self) {
            try await retry.run("claim") {
                attempts.withLock { $0 += 1 }
                throw RederiveError(.database, "the table is gone")
            }
        }
        #expect(attempts.withLock { $0 } == 1)
    }

    @Test func aTransientErrorThatLastsPastTheLimitIsThrown() async throws {
        let attempts = Mutex(0)
        let retry = TransientRetry(limit: .milliseconds(300), logger: Self.quiet) { _, _ in }
        await #expect(throws: RederiveError.self) {
            try await retry.run("commit") {
                attempts.withLock { $0 += 1 }
                throw RederiveError(.database, "locked", transient: true)
            }
        }
        // Waits of 25 to 50 ms, then 50 to 100, 100 to 200: a few attempts, not one, not hundreds.
        #expect((2...8).contains(attempts.withLock { $0 }))
    }

    @Test func aTransientErrorPastTheOutageLimitEndsWithTheOutageErrorNamingTheLimitAndTheLastError() async throws {
        let retry = TransientRetry(limit: .milliseconds(300), logger: Self.quiet) { _, _ in }
        do {
            _ = try await retry.run("claim") { () async throws -> Int in
                throw RederiveError(.database, "cannot claim records in rooms: connection refused", transient: true)
            }
            Issue.record("nothing was thrown")
        } catch let error as RederiveError {
            #expect(error.code == .outage)
            #expect(error.message == """
                the database was out of reach for longer than the outage limit of 0.3 s; what was committed stays, \
                and the next run resumes (last error: cannot claim records in rooms: connection refused)
                """)
        }
    }

    @Test func commitsThatFindTheWriteLockHeldPastTheBusyTimeoutAreTriedAgain() async throws {
        try await withTemporaryDatabase { path in
            let test = TestPipeline()
            try await prepare(test.pipeline, at: path)
            try insertRecords(samples(300), into: path)
            let store = try SQLiteStore(path: path, busyTimeout: 0.02)
            var configuration = Runner.Configuration(parallelism: 2, batchSize: 10, maximumRate: 100)
            configuration.claimSize = 5
            let progress = WatchingProgress()
            let task = Task { try await Runner(store: store, pipelines: [test.pipeline], configuration: configuration, progress: progress).run() }
            #expect(await eventually(within: 60) { progress.committed > 0 })
            // Another program holds the write lock for 400 ms at a time; rederive waits 20 ms for it,
            // until commits have been tried again.
            let writer = try CompetingWriter(path: path, hold: 0.4, gap: 0.1)
            let retried = await eventually(within: 60) { Self.latestRetries(progress) > 0 }
            await writer.stop()
            let summary = try await task.value
            #expect(retried)
            #expect(summary.status == .completed)
            #expect(summary.counts == RunCounts(changed: 300))
            #expect(summary.transientRetries > 0)
            #expect(try await store.failures(of: test.pipeline, filter: FailureFilter()).isEmpty)
        }
    }

    /// The retries the newest progress event counts.
    static func latestRetries(_ progress: WatchingProgress) -> Int {
        progress.events.events.reversed().lazy.compactMap { event in
            if case .advanced(let progress) = event { progress.transientRetries } else { nil }
        }.first ?? 0
    }
}
