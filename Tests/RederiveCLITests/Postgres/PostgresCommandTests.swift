#if PostgreSQL
import Foundation
import GRDB
import Glibc
import Rederive
import RederiveCLI
import RederiveCodec
import RederivePostgres
import RederivePostgresTestSupport
import RederiveTestSupport
import RoomScan
import Testing

/// The commands behave the same on SQLite and PostgreSQL, and PostgreSQL shares a run among processes.
@Suite("commands on PostgreSQL", .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .timeLimit(.minutes(5)))
struct PostgresCommandTests {
    /// What the reports say, with run ids and times left out: equal across stores for the same corpus.
    static func reports(_ harness: CommandHarness) async throws -> (status: String, failures: [String]) {
        let status = try await harness.rederive("status", "--format", "json")
        #expect(status.status == 0, "\(status.errors)")
        let failures = try await harness.rederive("failures", "--format", "json")
        #expect(failures.status == 0, "\(failures.errors)")
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(failures.output.utf8)) as? [[String: Any]])
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])
        let processors = try JSONSerialization.data(withJSONObject: [parsed["records"] ?? 0, parsed["processors"] ?? []], options: [.sortedKeys])
        return (
            String(decoding: processors, as: UTF8.self),
            entries.map { "\($0["key"] ?? "")|\($0["processor"] ?? "")|\($0["kind"] ?? "")|\($0["message"] ?? "")" }.sorted()
        )
    }

    @Test(arguments: TestStore.allCases)
    func generateRunStatusFailuresAndInvalidateAgree(store: TestStore) async throws {
        let (sqliteReports, sqliteValues) = try await TestStore.sqlite.withHarness { harness in
            try await Self.generateAndRun(harness, parallel: 1)
        }
        try await store.withHarness { harness in
            let (reports, values) = try await Self.generateAndRun(harness, parallel: 4)
            #expect(reports.status == sqliteReports.status)
            #expect(reports.failures == sqliteReports.failures)
            #expect(values == sqliteValues)

            let invalidated = try await harness.rederive("invalidate", "--processor", "element_counts")
            #expect(invalidated.status == 0, "\(invalidated.errors)")
            let status = try await harness.rederive("status", "--format", "json")
            let parsed = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])
            let processors = try #require(parsed["processors"] as? [[String: Any]])
            let counts = try #require(processors.first { $0["name"] as? String == "element_counts" })
            #expect(counts["upToDate"] as? Int == 0)
            let again = try await harness.rederive("run", "--progress", "none")
            #expect(again.output.contains(" 0 derived"), "\(again.output)")
            #expect(try await Self.reports(harness).status == sqliteReports.status)
        }
    }

    /// Generates 240 records, 5 % broken, runs, and returns the reports and derived values.
    static func generateAndRun(_ harness: CommandHarness, parallel: Int) async throws -> (
        reports: (status: String, failures: [String]), values: [String: [String]]
    ) {
        let generated = try await harness.rederive("generate", "--count", "240", "--seed", "5", "--corrupt", "0.05")
        #expect(generated.status == 0, "\(generated.errors)")
        let run = try await harness.rederive("run", "--parallel", String(parallel), "--batch-size", "16", "--progress", "none")
        #expect(run.status == 3, "\(run.output) \(run.errors)")
        #expect(run.output.contains(" 0 unchanged"), "\(run.output)")
        return (try await reports(harness), try derivedValues(harness))
    }

    /// Per key, every derived column as text (numbers as Swift prints them), from either store
    /// (`server` holds the harness's PostgreSQL database; the shared cluster unless given).
    static func derivedValues(_ harness: CommandHarness, server: PostgresServer? = nil) throws -> [String: [String]] {
        let columns = RoomScan.pipeline.outputColumns
        func text(_ raw: String?, _ type: ColumnType) -> String {
            guard let raw else { return "NULL" }
            switch type {
            case .real: return Double(raw).map { "\($0)" } ?? raw
            case .integer: return Int64(raw).map { "\($0)" } ?? raw
            default: return raw
            }
        }
        let select = "SELECT s.scan_id, " + columns.map { "d.\"\($0.name)\"" }.joined(separator: ", ")
            + " FROM room_scans s JOIN room_scans_derived d ON d.id = s.id"
        var values: [String: [String]] = [:]
        if let database = harness.serverDatabaseName {
            let rows = try (server ?? PostgresServer.shared()).psqlRows(database, select)
            for row in rows {
                values[row[0]] = zip(row.dropFirst(), columns).map { text($0 == nullCellText ? nil : $0, $1.type) }
            }
        } else {
            try harness.connection().read { db in
                for row in try Row.fetchAll(db, sql: select) {
                    values[row[0]] = columns.enumerated().map { index, column in
                        let value: DatabaseValue = row[index + 1]
                        switch value.storage {
                        case .null: return "NULL"
                        case .int64(let number): return text(String(number), column.type)
                        case .double(let number): return text("\(number)", column.type)
                        case .string(let string): return string
                        case .blob(let data): return data.base64EncodedString()
                        }
                    }
                }
            }
        }
        return values
    }

    @Test func threeProcessesOneKilledDeriveEveryRecordExactlyOnce() async throws {
        let count = 600
        let sqliteValues = try await TestStore.sqlite.withHarness { harness in
            _ = try await harness.rederive("generate", "--count", String(count), "--seed", "9", "--corrupt", "0.03")
            _ = try await harness.rederive("run", "--progress", "none")
            return try Self.derivedValues(harness)
        }
        let server = try PostgresServer.shared()
        try await TestStore.postgres.withHarness { harness in
            let url = try #require(harness.serverDatabase)
            let database = PostgresServer.databaseName(in: url)
            _ = try await harness.rederive("generate", "--count", String(count), "--seed", "9", "--corrupt", "0.03")
            // Paced, so that the kill lands while every process still has work.
            let arguments = ["run", "--db", url, "--parallel", "2", "--batch-size", "10", "--max-rate", "60",
                             "--lease-duration", "2", "--progress", "none"]
            let workers = try (0..<3).map { _ in try RederiveProcess.start(arguments, in: harness.directory) }
            let victim = workers[0]
            // Killed once it committed and every worker joined its run: a worker that started later,
            // as on a loaded machine, would find no live worker in that run and start a run of its own.
            var committed = 0
            var joined = 0
            while (committed == 0 || joined < workers.count) && !victim.hasEnded {
                try await Task.sleep(for: .milliseconds(100))
                committed = Int(try server.psql(database, PostgresRunCounts.committed(byProcess: victim.child.pid))
                    .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
                joined = Int(try server.psql(database, "SELECT count(*) FROM rederive_leases WHERE run_id IS NOT NULL")
                    .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            }
            #expect(!victim.hasEnded, "the first worker ended before it could be killed")
            _ = Glibc.kill(victim.child.pid, SIGKILL)
            let killed = try await victim.wait()
            #expect(killed.signaled && killed.status == SIGKILL)
            for worker in workers.dropFirst() {
                let outcome = try await worker.wait()
                #expect(outcome.status == 3, "\(outcome.output) \(outcome.errors)")
            }
            // The three workers shared one run. Each record was committed once: the run's counts (the
            // killed worker's commits included, since every commit adds to its share of the run) sum to the corpus,
            // and nothing was derived a second time.
            let totals = try server.psql(database, "SELECT sum(derived + failed), sum(unchanged), count(*), min(status) FROM \(PostgresRunCounts.runs)")
                .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|").map(String.init)
            #expect(totals == [String(count), "0", "1", "completed"], "\(totals)")
            let leftovers = try server.psql(database, """
                SELECT (SELECT count(*) FROM rederive_records WHERE claimed_by IS NOT NULL)
                    + (SELECT count(*) FROM rederive_leases WHERE expires_at > now())
                """).trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(leftovers == "0")
            #expect(try Self.derivedValues(harness) == sqliteValues)
            let pending = try await harness.rederive("run", "--progress", "none")
            #expect(pending.output.contains("0 derived, 0 unchanged, 0 failed"), "\(pending.output)")
        }
    }

    @Test func aRunWhoseEveryWorkerWasKilledIsRecordedAsInterruptedByTheNextRun() async throws {
        let server = try PostgresServer.shared()
        try await TestStore.postgres.withHarness { harness in
            let url = try #require(harness.serverDatabase)
            let database = PostgresServer.databaseName(in: url)
            _ = try await harness.rederive("generate", "--count", "300", "--seed", "5", "--corrupt", "0.05")
            let worker = try RederiveProcess.start(
                ["run", "--db", url, "--parallel", "2", "--batch-size", "10", "--max-rate", "60", "--lease-duration", "1", "--progress", "none"],
                in: harness.directory
            )
            var committed = 0
            while committed == 0 && !worker.hasEnded {
                try await Task.sleep(for: .milliseconds(100))
                committed = Int(try server.psql(database, PostgresRunCounts.committed(byProcess: worker.child.pid))
                    .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            }
            #expect(!worker.hasEnded, "the worker ended before it could be killed")
            _ = Glibc.kill(worker.child.pid, SIGKILL)
            let killed = try await worker.wait()
            #expect(killed.signaled && killed.status == SIGKILL)
            let before = try server.psql(database, "SELECT status || '|' || (derived + unchanged + failed) FROM \(PostgresRunCounts.runs)")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            // Its lease expires a second after its last heartbeat; then no worker derives its run.
            try await Task.sleep(for: .seconds(2))
            let next = try await harness.rederive("run", "--progress", "none")
            #expect(next.status == 3, "\(next.errors)")
            let runs = try server.psql(database, "SELECT status || '|' || (derived + unchanged + failed) FROM \(PostgresRunCounts.runs) ORDER BY id")
                .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            let handled = try #require(Int(before.split(separator: "|").last ?? ""), "\(before)")
            #expect(before.hasPrefix("running|") && handled > 0, "\(before)")
            #expect(runs.first == "interrupted|\(handled)", "\(runs)")
            #expect(runs.last == "completed|\(300 - handled)", "\(runs)")
        }
    }

    /// A commit under a lease that was reaped throws, as the store contract says (the conformance
    /// suite), and stores nothing: the records are the taker's.
    @Test func aCommitAfterTheLeaseWasTakenOverStoresNothing() async throws {
        let fixture = try await PostgresClaimFixture(records: 5)
        let (store, pipeline, plan) = (fixture.store, fixture.pipeline, fixture.plan)
        defer { store.close() }
        let late = try await fixture.lease(1, on: "a", lasting: .seconds(1))
        let claimed = try await store.claim(plan, limit: 10, byteLimit: 1 << 20, lease: late)
        #expect(claimed.count == 5)
        try await Task.sleep(for: .milliseconds(1500))  // the lease expires unrenewed
        let taker = try await fixture.lease(2, on: "b")
        let retaken = try await store.claim(plan, limit: 10, byteLimit: 1 << 20, lease: taker)
        #expect(retaken.map(\.recordID) == claimed.map(\.recordID))
        let runID = try await store.startRun([], lease: taker).id
        let results = claimed.map { RecordResult(evaluating: $0, pipeline: pipeline, codec: .init()) }
        let fenced = await #expect(throws: RederiveError.self) { _ = try await store.commit(results, plan: plan, runID: runID, lease: late) }
        #expect(fenced?.code == .leaseLost)
        let counts = try await store.commit(results, plan: plan, runID: runID, lease: taker).counts
        #expect(counts.skipped == 0 && counts.changed + counts.failed == 5)
        await #expect(throws: RederiveError.self) { try await store.claim(plan, limit: 10, byteLimit: 1 << 20, lease: late) }
        try await store.releaseLease(taker)
        #expect(try await store.liveWorkers().isEmpty)
    }

    @Test func aClaimTakesThePayloadsThatFitItsByteLimitAndLeavesTheRestUnclaimed() async throws {
        let fixture = try await PostgresClaimFixture(holding: (0..<6).map { index in
            Array((String(repeating: " ", count: 700 * (index + 1)) + #"{"walls": []}"#).utf8)
        })
        let (store, plan) = (fixture.store, fixture.plan)
        defer { store.close() }
        let first = try await fixture.lease(1)
        let all = try await store.claim(plan, limit: 10, byteLimit: 1 << 20, lease: first)
        #expect(all.count == 6)
        try await store.releaseLease(first)
        let sizes = all.map { $0.payload?.count ?? 0 }

        let second = try await fixture.lease(2)
        // A record is taken while those before it hold fewer bytes than the limit: three here.
        let fitting = try await store.claim(plan, limit: 10, byteLimit: sizes[0] + sizes[1] + 1, lease: second)
        #expect(fitting.map(\.recordID) == all.prefix(3).map(\.recordID))
        #expect(fitting.map(\.payload) == all.prefix(3).map(\.payload))
        // The first always, whatever the limit; the rest stay free for the next claim.
        let one = try await store.claim(plan, limit: 10, byteLimit: 1, lease: second)
        #expect(one.map(\.recordID) == [all[3].recordID])
        let rest = try await store.claim(plan, limit: 10, byteLimit: 1 << 20, lease: second)
        #expect(rest.map(\.recordID) == all.suffix(2).map(\.recordID))
        try await store.releaseLease(second)
    }

    @Test func workersOnlyJoinsARunInProgressAndStartsNoneAlone() async throws {
        try await TestStore.postgres.withHarness { harness in
            let url = try #require(harness.serverDatabase)
            _ = try await harness.rederive("generate", "--count", "300", "--seed", "4")
            let alone = try await harness.rederive("run", "--workers-only", "--progress", "none")
            #expect(alone.status == 0, "\(alone.errors)")
            #expect(alone.output.contains("no workers are deriving") && alone.output.contains("nothing to join"), "\(alone.output)")
            #expect(try await harness.count("SELECT count(*) FROM rederive_runs") == 0)

            // Slow enough (15 s for all) that the second process starts, under any load, while records are left;
            // the second has no limit and derives the rest at once.
            let first = try RederiveProcess.start(
                ["run", "--db", url, "--parallel", "1", "--batch-size", "10", "--max-rate", "20", "--progress", "none"], in: harness.directory
            )
            while try await harness.count(PostgresRunCounts.committed()) == 0, !first.hasEnded {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(!first.hasEnded, "the first worker ended before another could join")
            let joined = try await harness.rederive("run", "--workers-only", "--progress", "none", "--batch-size", "10")
            #expect(joined.status == 0, "\(joined.errors)")
            let firstOutcome = try await first.wait()
            #expect(firstOutcome.status == 0)
            // One run, which both derived a share of.
            let runs = try await harness.rows("SELECT id, derived, status FROM \(PostgresRunCounts.runs)")
            #expect(runs == [["1", "300", "completed"]], "\(runs)")
            func share(_ output: String) -> Int? {
                output.split(separator: " ").firstIndex(of: "derived,").flatMap { Int(output.split(separator: " ")[$0 - 1]) }
            }
            let shares = [share(firstOutcome.output), share(joined.output)]
            #expect(joined.output.hasPrefix("run 1 completed: ") && firstOutcome.output.hasPrefix("run 1 completed: "), "\(joined.output)")
            #expect(shares.allSatisfy { ($0 ?? 0) > 0 } && shares.compactMap { $0 }.reduce(0, +) == 300, "\(shares)")
        }
        try await TestStore.sqlite.withHarness { harness in
            let outcome = try await harness.rederive("run", "--workers-only")
            #expect(outcome.status == 1)
            #expect(outcome.errors.contains("--workers-only joins a run that other processes share"), "\(outcome.errors)")
            #expect(outcome.errors.contains("is derived by one process at a time"), "\(outcome.errors)")
        }
    }

    @Test func theDemoRunsOnAnEmptyDatabaseAndLeavesAFullOneAlone() async throws {
        try await TestStore.postgres.withHarness { harness in
            let url = try #require(harness.serverDatabase)
            let demo = try await harness.rederive("demo", "--db", url, "--count", "60")
            #expect(demo.status == 0, "\(demo.errors)")
            #expect(demo.output.contains("run 1 completed: "), "\(demo.output)")
            #expect(demo.output.contains("only that processor runs; its values are unchanged"))
            #expect(try await harness.count("SELECT count(*) FROM room_scans") == 60)
            let again = try await harness.rederive("demo", "--db", url, "--count", "60")
            #expect(again.status == 1)
            #expect(again.errors.contains("already holds records in room_scans"), "\(again.errors)")
            #expect(try await harness.count("SELECT count(*) FROM room_scans") == 60)
        }
    }

    @Test func readingCommandsCreateNothingInADatabaseRederiveHasNotPrepared() async throws {
        try await TestStore.postgres.withHarness { harness in
            for arguments in [["status"], ["failures"], ["history"], ["verify"], ["run", "--dry-run"]] {
                let outcome = try await harness.rederive(arguments)
                #expect(outcome.status == 1)
                #expect(
                    outcome.errors.hasSuffix(" is not a rederive database: it has no rederive tables (prepare it with rederive import, or rederive run)\n"),
                    "\(arguments): \(outcome.errors)"
                )
            }
            #expect(try await harness.count("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == 0)
            let run = try await harness.rederive("run", "--progress", "none")
            #expect(run.status == 0, "\(run.errors)")
            #expect(try await harness.rederive("status").status == 0)
        }
    }

    @Test func passwordsNeverShowAndSQLiteOnlyCommandsSaySo() async throws {
        let server = try PostgresServer.shared()
        try await CommandHarness.withHarness(serverDatabase: "postgres://postgres:hunter2@127.0.0.1:\(server.port)/no_such_database?sslmode=disable") { harness in
            let status = try await harness.rederive("status")
            #expect(status.status == 1)
            #expect(status.errors.contains("postgres://postgres@127.0.0.1:\(server.port)/no_such_database"), "\(status.errors)")
            #expect(!status.errors.contains("hunter2") && !status.output.contains("hunter2"))
            let backup = try await harness.rederive("backup", "--to", harness.directory.appendingPathComponent("copy").path)
            #expect(backup.status == 1)
            #expect(backup.errors.contains("pg_dump") && !backup.errors.contains("hunter2"), "\(backup.errors)")
            #expect(backup.errors.split(separator: "\n").count == 1)
        }
    }
}
#endif
