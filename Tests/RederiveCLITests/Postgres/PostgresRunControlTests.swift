#if PostgreSQL
import Foundation
import RederiveCLI
import RederivePostgresTestSupport
import Testing

/// `rederive pause` from a third host stops every worker of a run two hosts share within a heartbeat
/// or so, and `resume` lets them finish it: every record committed once, the values a single SQLite
/// process derives, one run in history.
@Suite("PostgreSQL pause and resume across hosts", .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .timeLimit(.minutes(5)))
struct PostgresRunControlTests {
    static let count = 200
    static let seed = "12"

    @Test func aPauseFromAThirdHostHoldsBothWorkersAndAResumeFinishesTheRunOnce() async throws {
        try await CrossHostCorpus.with(count: Self.count, seed: Self.seed, workers: 3) { corpus in
            let (hosts, server, database, url) = (corpus.hosts, corpus.server, corpus.database, corpus.url)
            let (harness, workers, sqliteValues) = (corpus.harness, corpus.workers, corpus.sqliteValues)

            // Paced to about 10 s, with a heartbeat every second.
            let arguments = ["run", "--db", url, "--parallel", "2", "--batch-size", "10", "--max-rate", "10",
                             "--lease-duration", "3", "--progress", "json"]
            let started = try (0..<2).map { try workers.start(arguments, wrapper: hosts.wrapper(worker: $0), in: harness.directory) }
            let probe = SharedRunProbe(server: server, database: database, workers: started)
            let (leases, state) = (probe.leases, probe.state)
            try await PostgresCrossHostTests.waitUntil("both workers have committed a batch", state: state) {
                let now = try leases()
                return started.allSatisfy { now[$0.child.pid]?.done ?? 0 > 0 } || started.contains(where: \.hasEnded)
            }
            let endedEarly = started.contains(where: \.hasEnded)
            try #require(!endedEarly, "a worker ended before the pause: \(state())")

            let pause = try await RederiveProcess.run(["pause", "--db", url], wrapper: hosts.wrapper(worker: 2), in: harness.directory)
            #expect(pause.status == 0, "\(pause.output) \(pause.errors)")
            try await PostgresCrossHostTests.waitUntil("both workers report themselves paused", limit: .seconds(30), state: state) {
                try server.psql(database, "SELECT count(*) FROM rederive_leases WHERE hold = 'paused'")
                    .trimmingCharacters(in: .whitespacesAndNewlines) == "2"
            }
            let held = try leases()
            #expect(held.values.allSatisfy { $0.claimed == 0 }, "paused workers hold claims: \(held)")
            let status = try await RederiveProcess.run(["status", "--db", url, "--format", "json"], wrapper: hosts.wrapper(worker: 2), in: harness.directory)
            let control = try #require(
                (try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])?["control"] as? [String: Any],
                "\(status.output) \(status.errors)"
            )
            let runs = try #require(control["runs"] as? [[String: Any]], "\(control)")
            #expect(runs.count == 1 && runs.first?["state"] as? String == "paused", "\(control)")
            #expect((runs.first?["workers"] as? [[String: Any]])?.compactMap { $0["hold"] as? String } == ["paused", "paused"], "\(control)")
            // Nothing is committed while paused: three heartbeats later the counts stand.
            try await Task.sleep(for: .seconds(3))
            #expect(try leases().mapValues(\.done).sorted { $0.key < $1.key }.map(\.value) == held.mapValues(\.done).sorted { $0.key < $1.key }.map(\.value))
            #expect(held.values.map(\.done).reduce(0, +) < Self.count, "\(held)")

            let resume = try await RederiveProcess.run(["resume", "--db", url], wrapper: hosts.wrapper(worker: 2), in: harness.directory)
            #expect(resume.status == 0, "\(resume.output) \(resume.errors)")
            for worker in started {
                let outcome = try await workers.finish(worker)
                #expect(!outcome.signaled && [0, 3].contains(outcome.status), "\(outcome.output) \(outcome.errors)")
                #expect(outcome.output.contains("\"event\":\"held\"") && outcome.output.contains("\"event\":\"resumed\""), "\(outcome.output)")
            }

            // One run, completed, whose counts sum to the corpus: each record committed once.
            let totals = try server.psql(database, "SELECT string_agg(status, ','), sum(derived + failed), sum(unchanged), count(*) FROM \(PostgresRunCounts.runs)")
                .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|").map(String.init)
            #expect(totals == ["completed", String(Self.count), "0", "1"], "\(totals)")
            #expect(try PostgresCommandTests.derivedValues(harness, server: server) == sqliteValues)
            #expect(try server.psql(database, "SELECT count(*) FROM rederive_pauses").trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        }
    }
}
#endif
