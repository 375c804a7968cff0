#if PostgreSQL
import Foundation
import RederivePostgresTestSupport
import Testing

/// A claim or a commit that the server rolls back for the moment (here a lock not granted within the
/// database's `lock_timeout`, SQLSTATE 55P03) is tried again: the run completes, no record fails, and
/// the summary and `--progress json` count the retries. The commit's first statements are prepared
/// while the lock is held, so their preparation fails too: a retry must prepare them again rather than
/// meet PostgresNIO's remembered failure on the same connection (it did, until the 60 s retry limit).
@Suite("transient errors on PostgreSQL", .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .timeLimit(.minutes(3)))
struct PostgresTransientRetryTests {
    @Test func aCommitRefusedByALockTimeoutIsTriedAgainAndNoRecordFails() async throws {
        let server = try PostgresServer.shared()
        let url = try server.makeDatabase()
        let database = PostgresServer.databaseName(in: url)
        try await CommandHarness.withHarness(serverDatabase: url) { harness in
            let generated = try await harness.rederive("generate", "--count", "60", "--seed", "27")
            try #require(generated.status == 0, "\(generated.errors)")
            // Every new session of the database waits 100 ms for a lock at most.
            try server.psql(database, "ALTER DATABASE \(database) SET lock_timeout = '100ms'")
            // Another session keeps every commit from writing stamps for 3 s; claims only read them.
            let holder = Thread {
                _ = try? server.psql(database, "BEGIN; LOCK TABLE rederive_stamps IN EXCLUSIVE MODE; SELECT pg_sleep(3); COMMIT")
            }
            holder.start()
            let held = "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'rederive_stamps' AND l.mode = 'ExclusiveLock' AND l.granted"
            #expect(await PostgresWatchTests.eventually(within: 30) { (try? server.psql(database, held).trimmingCharacters(in: .whitespacesAndNewlines)) == "1" })

            let run = try await harness.rederive("run", "--parallel", "2", "--progress", "json")
            #expect(run.status == 0, "\(run.output) \(run.errors)")
            let finished = try #require(run.output.split(separator: "\n").last { $0.contains(#""event":"finished""#) })
            let summary = try #require(try JSONSerialization.jsonObject(with: Data(finished.utf8)) as? [String: Any])
            #expect(summary["derived"] as? Int == 60, "\(finished)")
            #expect(summary["failed"] as? Int == 0, "\(finished)")
            #expect((summary["transientRetries"] as? Int ?? 0) > 0, "\(finished)")
            #expect(try server.psql(database, "SELECT count(*) FROM rederive_failures").trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        }
    }
}
#endif
