#if PostgreSQL
import Foundation
import Glibc
import RederiveCLI
import RederivePostgresTestSupport
import Testing

/// What a worker killed with SIGKILL held is derived by the live workers' next claims, not at the end
/// of the run when their cursors come round again; and a worker of the same host sees at once that
/// the killed process is gone (or its pid given to a later process), without waiting for its lease
/// to expire.
@Suite("PostgreSQL dead workers", .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .timeLimit(.minutes(3)))
struct PostgresDeadWorkerTests {
    /// Paced workers: three of them derive 30 records a second, and claim 5 at a time.
    static func pacedRun(_ url: String, lease seconds: Int) -> [String] {
        ["run", "--db", url, "--parallel", "1", "--batch-size", "5", "--max-rate", "10", "--lease-duration", String(seconds), "--progress", "none"]
    }

    @Test func theRecordsOfAKilledWorkerAreDerivedWhileTheLiveOnesStillHaveManyLeft() async throws {
        let count = 800
        let server = try PostgresServer.shared()
        try await TestStore.postgres.withHarness { harness in
            let url = try #require(harness.serverDatabase)
            let database = PostgresServer.databaseName(in: url)
            _ = try await harness.rederive("generate", "--count", String(count), "--seed", "12")
            let processes = Workers()
            defer { processes.killRemaining() }
            let workers = try (0..<3).map { _ in try processes.start(Self.pacedRun(url, lease: 2), in: harness.directory) }
            let victim = workers[0]
            let held = try await Self.killHolding(victim, processes, server: server, database: database)

            // Its lease is reaped at once by the workers of its host, or 2 s after its last heartbeat by
            // those of another; their cursors are past its records by then. Taken over first, the
            // records are committed while most of the run is still to do, not when the cursors come round.
            var left = count
            try await PostgresCrossHostTests.waitUntil("the killed worker's records are committed") {
                let rows = try server.psqlRows(database, """
                    SELECT (SELECT count(*) FROM rederive_records WHERE record_id = ANY('{\(held.map(String.init).joined(separator: ","))}'::bigint[])
                        AND committed_run IS NULL),
                        (SELECT count(*) FROM rederive_records WHERE committed_run IS NULL)
                    """)
                left = Int(rows.first?[1] ?? "") ?? count
                return rows.first?[0] == "0"
            }
            #expect(left >= count / 4, "only \(left) of \(count) records were left when the killed worker's \(held.count) were committed")

            for worker in workers.dropFirst() {
                let outcome = try await processes.finish(worker)
                #expect(!outcome.signaled && outcome.status == 0, "\(outcome.output) \(outcome.errors)")
            }
            let totals = try server.psql(database, "SELECT sum(derived + failed), sum(unchanged), count(*) FROM \(PostgresRunCounts.runs)")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(totals == "\(count)|0|1", "\(totals)")
            let leftovers = try server.psql(database, "SELECT count(*) FROM rederive_records WHERE claimed_by IS NOT NULL")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(leftovers == "0", "claimed records")
        }
    }

    @Test func aWorkerStartedOnTheHostOfAKilledOneReapsItsLeaseAtOnce() async throws {
        let server = try PostgresServer.shared()
        try await TestStore.postgres.withHarness { harness in
            let url = try #require(harness.serverDatabase)
            let database = PostgresServer.databaseName(in: url)
            _ = try await harness.rederive("generate", "--count", "150", "--seed", "13")
            // A lease far longer than the test waits: its expiry cannot be what frees the records.
            let processes = Workers()
            defer { processes.killRemaining() }
            let victim = try processes.start(Self.pacedRun(url, lease: 60), in: harness.directory)
            let held = try await Self.killHolding(victim, processes, server: server, database: database)
            let expiry = try server.psql(database, "SELECT extract(epoch FROM expires_at) FROM rederive_leases WHERE process_id = \(victim.child.pid)")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            try #require(Double(expiry) != nil, "the killed worker has no lease: \(expiry)")

            // Its lease is still there, but status on its host sees that it no longer runs.
            #expect(try await !Self.statusListsWorker(victim.child.pid, harness), "status lists the killed worker")

            let restarted = try processes.start(Self.pacedRun(url, lease: 60), in: harness.directory)
            // Committed by the restarted worker before the dead lease would have expired.
            var committedBeforeExpiry = false
            try await PostgresCrossHostTests.waitUntil("the killed worker's records are committed, or its lease expired") {
                let row = try server.psqlRows(database, """
                    SELECT (SELECT count(*) FROM rederive_records WHERE record_id = ANY('{\(held.map(String.init).joined(separator: ","))}'::bigint[])
                        AND committed_run IS NULL), extract(epoch FROM clock_timestamp()) < \(expiry)
                    """).first ?? []
                committedBeforeExpiry = row.first == "0" && row.last == "t"
                return row.first == "0" || row.last != "t"
            }
            #expect(committedBeforeExpiry, "the killed worker's records waited for its lease's expiry")
            let leases = try server.psqlRows(database, "SELECT process_id FROM rederive_leases").map { $0[0] }
            #expect(!leases.contains(String(victim.child.pid)), "the dead lease is still there: \(leases)")
            #expect(try await !Self.statusListsWorker(victim.child.pid, harness), "status lists the killed worker")

            let outcome = try await processes.finish(restarted)
            #expect(!outcome.signaled && outcome.status == 0, "\(outcome.output) \(outcome.errors)")
        }
    }

    /// A lease of a process of this host is reaped at once when its pid no longer runs, or runs a
    /// process that started at another time (a pid given again); never while its pid and start match.
    @Test func aLeaseIsReapedWhenItsPidIsGoneOrGivenToALaterProcessOnly() async throws {
        let server = try PostgresServer.shared()
        try await TestStore.postgres.withHarness { harness in
            let url = try #require(harness.serverDatabase)
            let database = PostgresServer.databaseName(in: url)
            _ = try await harness.rederive("generate", "--count", "12", "--seed", "14")
            let ended = Process()
            ended.executableURL = URL(fileURLWithPath: "/bin/true")
            try ended.run()
            ended.waitUntilExit()
            let start = try #require(Self.startOfThisProcess(), "this machine does not say when a process started")
            let host = ProcessInfo.processInfo.hostName.replacingOccurrences(of: "'", with: "''")
            let leases = [
                // This test process, alive, as its lease says.
                ("alive", getpid(), "\(start.boot) \(start.namespace) \(start.ticks)"),
                // Its pid, but a process started earlier: the pid was given again.
                ("reused", getpid(), "\(start.boot) \(start.namespace) \(start.ticks - 1)"),
                ("ended", ended.processIdentifier, "\(start.boot) \(start.namespace) \(start.ticks)"),
            ]
            for (token, pid, processStart) in leases {
                try server.psql(database, """
                    INSERT INTO rederive_leases (token, holder, host, process_id, process_start, acquired_at, renewed_at, expires_at)
                    VALUES ('\(token)', 'pid \(pid) on \(host)', '\(host)', \(pid), '\(processStart)', now(), now(), now() + interval '10 minutes')
                    """)
            }
            // The dead leases hold records, as a killed worker's do.
            try server.psql(database, "UPDATE rederive_records SET claimed_by = CASE WHEN record_id % 2 = 0 THEN 'reused' ELSE 'ended' END WHERE record_id <= 4")

            // Were the dead leases taken for live, the run would wait for their records for ten minutes.
            let processes = Workers()
            defer { processes.killRemaining() }
            let worker = try processes.start(["run", "--db", url, "--progress", "none"], in: harness.directory)
            let run = try await processes.finish(worker, limit: .seconds(60))
            #expect(!run.signaled && run.status == 0, "\(run.output) \(run.errors)")
            let left = try server.psqlRows(database, "SELECT token FROM rederive_leases ORDER BY token").map { $0[0] }
            #expect(left == ["alive"])
            let derived = try server.psql(database, "SELECT sum(derived) FROM \(PostgresRunCounts.runs)").trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(derived == "12")
            try server.psql(database, "DELETE FROM rederive_leases")
        }
    }

    /// Whether `status --format json` lists process `pid` among the workers deriving now.
    private static func statusListsWorker(_ pid: Int32, _ harness: CommandHarness) async throws -> Bool {
        let status = try await harness.rederive("status", "--format", "json")
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any], "\(status.output)")
        return (listed["workers"] as? [[String: Any]] ?? []).contains { $0["pid"] as? Int == Int(pid) }
    }

    /// Stops `victim` when it holds claimed records (resuming it in between), kills it with SIGKILL,
    /// and returns the records it held.
    private static func killHolding(
        _ victim: RederiveProcess, _ processes: Workers, server: PostgresServer, database: String
    ) async throws -> [Int64] {
        let deadline = ContinuousClock.now + .seconds(60)
        let holding = """
            SELECT r.record_id FROM rederive_records r JOIN rederive_leases l ON l.token = r.claimed_by
            WHERE l.process_id = \(victim.child.pid)
            """
        while ContinuousClock.now < deadline && !victim.hasEnded {
            let committed = Int(try server.psql(database, PostgresRunCounts.committed(byProcess: victim.child.pid))
                .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            if committed > 0, try !server.psqlRows(database, holding).isEmpty {
                _ = Glibc.kill(victim.child.pid, SIGSTOP)
                let held = try server.psqlRows(database, holding).compactMap { Int64($0[0]) }
                if !held.isEmpty {
                    _ = Glibc.kill(victim.child.pid, SIGKILL)
                    let outcome = try await processes.finish(victim)
                    #expect(outcome.signaled && outcome.status == SIGKILL)
                    return held
                }
                _ = Glibc.kill(victim.child.pid, SIGCONT)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw ProcessError("worker \(victim.child.pid) was never caught holding records")
    }

    /// This process's boot id, pid namespace and start in clock ticks since boot, as `/proc` says.
    static func startOfThisProcess() -> (boot: String, namespace: String, ticks: UInt64)? {
        guard let boot = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8),
              let namespace = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/pid"),
              let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count >= 20, let ticks = UInt64(fields[19]) else { return nil }
        return (boot.trimmingCharacters(in: .whitespacesAndNewlines), namespace, ticks)
    }
}

#endif
