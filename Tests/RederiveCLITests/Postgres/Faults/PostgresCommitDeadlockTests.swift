#if PostgreSQL
import Foundation
import Rederive
import RederivePostgres
import RederivePostgresTestSupport
import RoomScan
import Testing

/// An app deleting a record while a worker commits it: the app's `DELETE` locks the table's row and
/// then, by its trigger, the record's bookkeeping row; the worker's commit should take the same rows in
/// the same order (through the pipeline's holder function, as the role that runs may not lock the
/// app's rows itself), so that the two wait for each other rather than deadlock.
///
/// The interleaving is made, not hoped for: a third session holds the companion table locked, so
/// the worker's commit waits there, after it has checked its records and before it writes their
/// derived rows; the app's delete of one of those records begins then, and the lock is let go once
/// the delete waits too.
@Suite("PostgreSQL commits, rollbacks and an app's deletes", .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .timeLimit(.minutes(3)))
struct PostgresCommitDeadlockTests {
    @Test func anAppDeletingARecordAWorkerCommitsNeitherDeadlocksNorFails() async throws {
        let server = try PostgresServer.shared()
        let url = try server.makeDatabase()
        let database = PostgresServer.databaseName(in: url)
        let logStart = try Self.serverLog(server).count
        try await CommandHarness.withHarness(serverDatabase: url) { harness in
            let generated = try await harness.rederive("generate", "--count", "20", "--seed", "5")
            try #require(generated.status == 0, "\(generated.errors)")
            // One record derived first: the pipeline is prepared, and the run below only commits.
            let prepared = try await harness.rederive("run", "--limit", "1", "--progress", "none")
            try #require(prepared.status == 0, "\(prepared.errors)")
            try server.psql(database, "CREATE EXTENSION IF NOT EXISTS pgrowlocks")
            // Held for 20 s at most, well within the commit's deadline (30 s), and let go sooner below.
            let locker = Self.blocking {
                try? server.psql(database, "BEGIN; LOCK TABLE room_scans_derived IN EXCLUSIVE MODE; SELECT pg_sleep(20); COMMIT")
            }
            let lockerPID = "SELECT pid FROM pg_stat_activity WHERE query LIKE '%LOCK TABLE room_scans_derived%' AND pid <> pg_backend_pid()"
            try await PostgresCrossHostTests.waitUntil("the companion table is locked", limit: .seconds(30)) {
                !(try server.psqlRows(database, lockerPID)).isEmpty
            }
            let worker = try RederiveProcess.start(
                ["run", "--db", url, "--parallel", "1", "--batch-size", "20", "--progress", "none"], in: harness.directory
            )
            defer { worker.kill() }
            // The worker's commit waits for the lock, holding what it took before writing values.
            let commitPID = try await Self.waitingForALock(
                "INSERT INTO %room_scans_derived%", "the worker's commit waits for the companion table", server, database,
                limit: .seconds(60), state: { worker.errorsSoFar() }
            )
            let recordID = try #require(try Self.firstRecord(lockedBy: commitPID, server, database), "the waiting commit holds no record")
            let (app, appPID) = try await Self.deleteWaiting(recordID, server, database)
            // Let go: the commit and the delete go on, in whatever order the locks allow.
            for row in try server.psqlRows(database, lockerPID) {
                _ = try server.psql(database, "SELECT pg_cancel_backend(\(row[0]))")
            }
            _ = await locker.value
            let refused = await app.value
            let outcome = try await worker.wait()
            // The worker ends as it should.
            #expect(!outcome.signaled && outcome.status == 0, "\(outcome.status): \(outcome.errors)")
            let left = try Self.rowsLeft(deleting: recordID, server, database)
            // Neither is ended as a deadlock's victim: the delete waited for the commit, or the commit for it.
            // The server logs a deadlock under its victim's pid, one of these two, whichever the victim;
            // a worker tries a commit that lost again, without a word at its default log level.
            #expect(refused == nil, "the app's delete failed: \(refused ?? "")")
            #expect(!outcome.errors.contains("deadlock") && !outcome.errors.contains("40P01"), "\(outcome.errors)")
            let deadlocks = try Self.deadlocks(of: [commitPID, appPID], in: server, since: logStart)
            #expect(deadlocks.isEmpty, "\(deadlocks)")
            // The deleted record is gone with its derived row; every other one is derived.
            #expect(left == "19|19|0", "rows | derived rows | the deleted record's rows")
        }
    }

    /// The same with `rederive rollback`, which locks the bookkeeping rows of every record it puts
    /// back, then writes their companion rows. The rollback is held up in between, by a third session
    /// holding `rederive_stamps` locked (it reads the stamps after locking the records; the app's
    /// delete locks the record's bookkeeping row before its stamps). The app's delete of one of those
    /// records begins then: had the rollback not locked the table's row first, the delete would
    /// remove the companion row by its cascade and wait for the bookkeeping row, and the rollback,
    /// let go, would wait for that companion row, a deadlock every time.
    @Test func anAppDeletingARecordARollbackPutsBackNeitherDeadlocksNorFails() async throws {
        let server = try PostgresServer.shared()
        let url = try server.makeDatabase()
        let database = PostgresServer.databaseName(in: url)
        let logStart = try Self.serverLog(server).count
        try await CommandHarness.withHarness(serverDatabase: url) { harness in
            let generated = try await harness.rederive("generate", "--count", "20", "--seed", "5")
            try #require(generated.status == 0, "\(generated.errors)")
            let derived = try await harness.rederive("run", "--progress", "none")
            try #require(derived.status == 0, "\(derived.errors)")
            // Run 1 replaced every record's values; one record is deleted before the rollback, as an app may.
            let entries = try #require(Int(try server.psql(database, """
                SELECT count(*) FROM rederive_replaced k, jsonb_object_keys(k.processors) WHERE k.run_id = 1
                """).trimmingCharacters(in: .whitespacesAndNewlines)))
            try #require(entries > 0 && entries % 20 == 0, "\(entries) kept entries")
            let gone = try #require(try server.psqlRows(database, "SELECT min(id) FROM room_scans").first?.first)
            try server.psql(database, "DELETE FROM room_scans WHERE id = \(gone)")
            try server.psql(database, "CREATE EXTENSION IF NOT EXISTS pgrowlocks")
            // Held for 20 s at most, and let go sooner below.
            let locker = Self.blocking {
                try? server.psql(database, "BEGIN; LOCK TABLE rederive_stamps IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(20); COMMIT")
            }
            try await PostgresCrossHostTests.waitUntil("rederive_stamps is locked", limit: .seconds(30)) {
                !(try server.psqlRows(database, """
                    SELECT 1 FROM pg_locks WHERE relation = 'rederive_stamps'::regclass AND mode = 'AccessExclusiveLock' AND granted
                    """)).isEmpty
            }
            let rollback = try RederiveProcess.start(["rollback", "1", "--db", url], in: harness.directory)
            defer { rollback.kill() }
            // The rollback waits for the stamps, holding the records it locked before reading them.
            let rollbackPID = try await Self.waitingForALock(
                "%FROM rederive_replaced k%", "the rollback waits for rederive_stamps", server, database, state: { rollback.errorsSoFar() }
            )
            let recordID = try #require(try Self.firstRecord(lockedBy: rollbackPID, server, database), "the waiting rollback holds no record")
            let (app, appPID) = try await Self.deleteWaiting(recordID, server, database)
            for row in try server.psqlRows(database, """
                SELECT pid FROM pg_stat_activity WHERE query LIKE '%LOCK TABLE rederive_stamps%' AND pid <> pg_backend_pid()
                """) {
                try server.psql(database, "SELECT pg_cancel_backend(\(row[0]))")
            }
            _ = await locker.value
            let refused = await app.value
            let outcome = try await rollback.wait()
            // The rollback ends as it should: every record put back but the one deleted before it,
            // which is reported skipped.
            #expect(!outcome.signaled && outcome.status == 0, "\(outcome.status): \(outcome.errors)")
            let perRecord = entries / 20
            let summary = "rolled back run 1: \(entries - perRecord) restored, \(perRecord) skipped"
            #expect(outcome.output.hasPrefix(summary), "\(outcome.output)")
            let deleted = outcome.output.split(separator: "\n").filter { $0.hasPrefix("  skipped #\(gone) ") && $0.hasSuffix(": the record was deleted") }
            #expect(deleted.count == perRecord, "\(outcome.output)")
            // Neither is ended as a deadlock's victim.
            #expect(refused == nil, "the app's delete failed: \(refused ?? "")")
            #expect(!outcome.errors.contains("deadlock") && !outcome.errors.contains("40P01"), "\(outcome.errors)")
            let deadlocks = try Self.deadlocks(of: [rollbackPID, appPID], in: server, since: logStart)
            #expect(deadlocks.isEmpty, "\(deadlocks)")
            let left = try Self.rowsLeft(deleting: recordID, server, database)
            #expect(left == "18|18|0", "rows | derived rows | the deleted record's rows")
        }
    }

    /// A pipeline last prepared by a rederive without holder functions has none, and the store's
    /// rollback does not prepare pipelines (the command's opening does): it then puts back values
    /// without locking the table's rows, as before.
    @Test func aRollbackWithoutTheHolderFunctionPutsBackAsBefore() async throws {
        let server = try PostgresServer.shared()
        let url = try server.makeDatabase()
        let database = PostgresServer.databaseName(in: url)
        try await CommandHarness.withHarness(serverDatabase: url) { harness in
            let generated = try await harness.rederive("generate", "--count", "5", "--seed", "5")
            try #require(generated.status == 0, "\(generated.errors)")
            let derived = try await harness.rederive("run", "--progress", "none")
            try #require(derived.status == 0, "\(derived.errors)")
            let entries = try server.psql(database, """
                SELECT count(*) FROM rederive_replaced k, jsonb_object_keys(k.processors) WHERE k.run_id = 1
                """).trimmingCharacters(in: .whitespacesAndNewlines)
            try server.psql(database, "DROP FUNCTION rederive_room_scans_hold(bigint[], bigint[])")
            let store = try await PostgresStore(url: url)
            defer { store.close() }
            let report = try await store.rollback(run: 1, pipelines: [RoomScan.pipeline])
            #expect("\(report.restored.count)" == entries && report.skipped.isEmpty, "\(report.restored.count) of \(entries) restored")
            let holders = try server.psql(database, "SELECT count(*) FROM pg_proc WHERE proname = 'rederive_room_scans_hold'")
            #expect(holders.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "the store's rollback does not prepare the pipeline")
        }
    }

    /// The lowest id among the records whose bookkeeping rows server process `pid` holds locked.
    static func firstRecord(lockedBy pid: String, _ server: PostgresServer, _ database: String) throws -> String? {
        try server.psqlRows(database, """
            SELECT r.record_id FROM rederive_records r JOIN pgrowlocks('rederive_records') l ON r.ctid = l.locked_row
            WHERE \(pid) = ANY(l.pids) ORDER BY r.record_id LIMIT 1
            """).first?.first
    }

    /// Starts an app's `DELETE` of record `recordID` and returns once it waits for a lock: its task,
    /// which ends with its error if the server refused it, and its server process.
    static func deleteWaiting(_ recordID: String, _ server: PostgresServer, _ database: String) async throws -> (Task<String?, Never>, String) {
        let app = blocking { () -> String? in
            do {
                try server.psql(database, "DELETE FROM room_scans WHERE id = \(recordID)")
                return nil
            } catch {
                return "\(error)"
            }
        }
        return (app, try await waitingForALock("DELETE FROM room_scans WHERE%", "the app's delete waits", server, database))
    }

    /// The server process of the session whose statement is `LIKE pattern`, once it waits for a lock;
    /// `what` names the wait when it lasts past `limit`, with what `state` then says.
    static func waitingForALock(
        _ pattern: String, _ what: String, _ server: PostgresServer, _ database: String,
        limit: Duration = .seconds(30), state: () -> String = { "" }
    ) async throws -> String {
        var pid = ""
        try await PostgresCrossHostTests.waitUntil(what, limit: limit, state: state) {
            pid = try server.psqlRows(database, """
                SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '\(pattern)'
                """).first?.first ?? ""
            return !pid.isEmpty
        }
        return pid
    }

    /// `rows|derived rows|rows of record recordID` of the app's table and its companion.
    static func rowsLeft(deleting recordID: String, _ server: PostgresServer, _ database: String) throws -> String {
        try server.psql(database, """
            SELECT (SELECT count(*) FROM room_scans) || '|' || (SELECT count(*) FROM room_scans_derived)
                || '|' || (SELECT count(*) FROM room_scans WHERE id = \(recordID))
            """).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The cluster's log, which every test of the process shares.
    static func serverLog(_ server: PostgresServer) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: "\(server.directory)/server.log"))
    }

    /// The log's `deadlock detected` lines written since byte `offset` by the server processes `pids`
    /// (the log's lines begin with the time and `[pid]`).
    static func deadlocks(of pids: [String], in server: PostgresServer, since offset: Int) throws -> [String] {
        let text = String(decoding: try serverLog(server).dropFirst(offset), as: UTF8.self)
        return text.split(separator: "\n").map(String.init).filter { line in
            line.contains("deadlock detected") && pids.contains { line.contains("[\($0)]") }
        }
    }

    /// Runs `body` (a `psql` that waits on the server) on a thread of its own, not the test's pool:
    /// two such waits would take every thread of a small machine's pool and hold up the test.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () -> T) -> Task<T, Never> {
        Task {
            await withCheckedContinuation { continuation in
                Thread { continuation.resume(returning: body()) }.start()
            }
        }
    }
}
#endif
