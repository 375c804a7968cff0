#if PostgreSQL
import Rederive
import RederivePostgres
import RederivePostgresTestSupport
import RederiveTestSupport
import Synchronization
import Testing

/// Processors that derive from other processors' values behave on PostgreSQL as on SQLite: they derive
/// after their inputs, again only when their inputs' values change, without payloads when nothing else
/// is stale, and fail with kind `upstream` while an input fails.
@Suite("dependent processors on PostgreSQL", .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .timeLimit(.minutes(5)))
struct PostgresDependentTests {
    /// hall 12 m², den 6 m², barn 30 m².
    static let plans: [(key: String, payload: [UInt8])] = [
        ("hall", Array(#"{"label": "hall", "width": 3, "depth": 4}"#.utf8)),
        ("den", Array(#"{"label": "den", "width": 2, "depth": 3}"#.utf8)),
        ("barn", Array(#"{"label": "barn", "width": 5, "depth": 6}"#.utf8)),
    ]

    /// A new database holding ``plans``, prepared for the pipeline; its URL and name.
    static func database(_ pipeline: Pipeline) async throws -> (url: String, name: String) {
        let url = try PostgresServer.shared().makeDatabase()
        let store = try await PostgresStore(url: url)
        defer { store.close() }
        try await store.prepare(pipeline)
        _ = try await store.importPayloads(plans, into: pipeline)
        return (url, PostgresServer.databaseName(in: url))
    }

    /// Runs the pipeline to the end in small claims and batches.
    static func run(_ pipeline: Pipeline, _ url: String) async throws -> RunSummary {
        let store = try await PostgresStore(url: url)
        defer { store.close() }
        var configuration = Runner.Configuration(parallelism: 2, batchSize: 2)
        configuration.claimSize = 2
        return try await Runner(store: store, pipelines: [pipeline], configuration: configuration).run()
    }

    /// Per key, `area|label|kind` as stored, in the companion table or, `inline`, in `plans` itself.
    static func values(_ database: String, inline: Bool = false) throws -> [String: String] {
        let rows = try PostgresServer.shared().psqlRows(database, inline
            ? "SELECT key, area, label, kind FROM plans"
            : "SELECT p.key, d.area, d.label, d.kind FROM plans p JOIN plans_derived d ON d.id = p.id")
        return Dictionary(uniqueKeysWithValues: rows.map { ($0[0], $0.dropFirst().joined(separator: "|")) })
    }

    /// Per key, `column` of a processor's stamp row (`run_id`, `current`, `input_versions` …), as text.
    static func stamps(_ database: String, _ processor: String, _ column: String) throws -> [String: String] {
        let rows = try PostgresServer.shared().psqlRows(database, """
            SELECT p.key, s.\(column)::text FROM rederive_stamps s JOIN plans p ON p.id = s.record_id
            WHERE s.pipeline = 'plans' AND s.processor = '\(processor)'
            """)
        return Dictionary(uniqueKeysWithValues: rows.map { ($0[0], $0[1]) })
    }

    /// Every stamp row of the pipeline, every column, by key then processor.
    static func stampRows(_ database: String) throws -> [[String]] {
        try PostgresServer.shared().psqlRows(database, """
            SELECT p.key, s.processor, s.version, s.generation, s.payload_digest, s.current, s.run_id, s.inputs_digest, s.input_versions
            FROM rederive_stamps s JOIN plans p ON p.id = s.record_id WHERE s.pipeline = 'plans' ORDER BY p.key, s.processor
            """)
    }

    @Test(arguments: [false, true])
    func anInputDerivedToOtherValuesCascadesAndToEqualValuesDoesNot(inline: Bool) async throws {
        let layout: Pipeline.Layout? = inline ? .inline : nil
        let first = FloorPipeline(layout: layout)
        let (url, database) = try await Self.database(first.pipeline)
        let firstRun = try await Self.run(first.pipeline, url)
        #expect(firstRun.counts == RunCounts(changed: 3))
        #expect(first.calls.kind.load(ordering: .relaxed) == 3)
        #expect(try Self.values(database, inline: inline) == ["hall": "12|hall|hall-small", "den": "6|den|den-small", "barn": "30|barn|barn-large"])
        #expect(try Self.stamps(database, "kind", "input_versions") == ["hall": "area@1,label@1", "den": "area@1,label@1", "barn": "area@1,label@1"])

        // Every area doubles: every kind reads other values and derives again, hall's now large.
        let doubled = FloorPipeline(areaVersion: 2, layout: layout)
        let secondRun = try await Self.run(doubled.pipeline, url)
        #expect(secondRun.counts == RunCounts(changed: 3))
        #expect(doubled.calls.area.load(ordering: .relaxed) == 3)
        #expect(doubled.calls.label.load(ordering: .relaxed) == 0)
        #expect(doubled.calls.kind.load(ordering: .relaxed) == 3)
        #expect(try Self.values(database, inline: inline) == ["hall": "24|hall|hall-large", "den": "12|den|den-small", "barn": "60|barn|barn-large"])
        let run2 = String(secondRun.runID)
        #expect(try Self.stamps(database, "kind", "run_id") == ["hall": run2, "den": run2, "barn": run2])
        #expect(try Self.stamps(database, "kind", "input_versions") == ["hall": "area@2,label@1", "den": "area@2,label@1", "barn": "area@2,label@1"])

        // Area computed otherwise, to the same values: kind is not derived, its stamps stay as they were.
        let same = FloorPipeline(areaVersion: 3, layout: layout)
        let thirdRun = try await Self.run(same.pipeline, url)
        #expect(thirdRun.counts == RunCounts(unchanged: 3))
        #expect(same.calls.area.load(ordering: .relaxed) == 3)
        #expect(same.calls.kind.load(ordering: .relaxed) == 0)
        let run3 = String(thirdRun.runID)
        #expect(try Self.stamps(database, "area", "run_id") == ["hall": run3, "den": run3, "barn": run3])
        #expect(try Self.stamps(database, "kind", "run_id") == ["hall": run2, "den": run2, "barn": run2])
        #expect(try Self.values(database, inline: inline) == ["hall": "24|hall|hall-large", "den": "12|den|den-small", "barn": "60|barn|barn-large"])

        let store = try await PostgresStore(url: url)
        defer { store.close() }
        #expect(try await store.staleCount(RunPlan(pipeline: same.pipeline)) == 0)
        #expect(try await store.status(of: same.pipeline).map(\.upToDate) == [3, 3, 3])
    }

    @Test func aDependentDerivedAloneReadsNoPayload() async throws {
        let first = FloorPipeline()
        let (url, database) = try await Self.database(first.pipeline)
        _ = try await Self.run(first.pipeline, url)
        let server = try PostgresServer.shared()

        // A role that may read everything but the payloads: any statement that reads one fails.
        let role = "deriver_\(database.suffix(8))"
        try server.psql(database, """
            CREATE ROLE \(role) LOGIN;
            GRANT ALL ON ALL TABLES IN SCHEMA public TO \(role);
            GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO \(role);
            REVOKE ALL ON plans FROM \(role);
            GRANT SELECT (id, key), REFERENCES (payload) ON plans TO \(role);
            """)
        let store = try await PostgresStore(url: server.url(database: database, user: role))
        defer { store.close() }
        let areaPlan = RunPlan(pipeline: FloorPipeline(areaVersion: 2).pipeline)
        await #expect(throws: RederiveError.self, "the role must not read payloads") {
            try await store.staleRecords(areaPlan, after: nil, limit: 10, byteLimit: 1 << 20)
        }

        let uppercase = FloorPipeline(kindVersion: 2)
        let plan = RunPlan(pipeline: uppercase.pipeline)
        let pending = try await store.staleRecords(plan, after: nil, limit: 10, byteLimit: 1)
        #expect(pending.count == 3, "a byte limit counts payloads read, and none is")
        guard case .acquired(let lease) = try await store.acquireLease(for: WorkerIdentity(host: "test", processID: 1), duration: .seconds(30)) else {
            Issue.record("no lease")
            return
        }
        let claimed = try await store.claim(plan, limit: 10, byteLimit: 1, lease: lease)
        try await store.releaseLease(lease)
        #expect(claimed.count == 3)
        for record in pending + claimed {
            #expect(record.input == .notRead)
            #expect(record.staleProcessors == [2])
            #expect(record.dependencies.watching.isEmpty)
            #expect(record.dependencies.failures.isEmpty)
            #expect(record.dependencies.storedValues.keys.sorted() == [0, 1])
        }
        let stored = Dictionary(uniqueKeysWithValues: claimed.map { ($0.recordID, $0.dependencies.storedValues) })
        let ids = try server.psqlRows(database, "SELECT key, id FROM plans").reduce(into: [String: Int64]()) { $0[$1[0]] = Int64($1[1]) }
        let den = try #require(ids["den"])
        let barn = try #require(ids["barn"])
        #expect(stored[den] == [0: [.real(6)], 1: [.text("den")]])
        #expect(stored[barn] == [0: [.real(30)], 1: [.text("barn")]])

        let runAsRole = try await Runner(store: store, pipelines: [uppercase.pipeline], configuration: .init(parallelism: 2, batchSize: 2)).run()
        #expect(runAsRole.counts == RunCounts(changed: 3))
        #expect(uppercase.calls.area.load(ordering: .relaxed) == 0 && uppercase.calls.label.load(ordering: .relaxed) == 0)
        #expect(uppercase.calls.kind.load(ordering: .relaxed) == 3)
        #expect(try Self.values(database) == ["hall": "12|hall|HALL-SMALL", "den": "6|den|DEN-SMALL", "barn": "30|barn|BARN-LARGE"])
        #expect(try await store.status(of: uppercase.pipeline).map(\.upToDate) == [3, 3, 3])
    }

    @Test func aFailedInputFailsItsDependentUntilTheInputDerives() async throws {
        let rejectingDen = FloorPipeline(rejectedLabel: "den")
        let (url, database) = try await Self.database(rejectingDen.pipeline)
        let store = try await PostgresStore(url: url)
        defer { store.close() }
        func failures(_ pipeline: Pipeline) async throws -> [String] {
            try await store.failures(of: pipeline, filter: FailureFilter()).map { "\($0.key ?? "")|\($0.processor)|\($0.kind.rawValue)|\($0.message)" }
        }

        // A first derivation: den's label fails, and so its kind, naming the input.
        let first = try await Self.run(rejectingDen.pipeline, url)
        #expect(first.counts == RunCounts(changed: 2, failed: 1))
        #expect(try await failures(rejectingDen.pipeline) == [
            "den|label|processor|label den is rejected",
            "den|kind|upstream|input processor label failed for this record",
        ])
        #expect(try Self.values(database)["den"] == "6|<NULL>|<NULL>")
        #expect(try await store.staleCount(RunPlan(pipeline: rejectingDen.pipeline)) == 0)

        // The input derives: the failure clears, and only den's kind derives again.
        let accepting = FloorPipeline(labelVersion: 2)
        let second = try await Self.run(accepting.pipeline, url)
        #expect(second.counts == RunCounts(changed: 1, unchanged: 2))
        #expect(accepting.calls.kind.load(ordering: .relaxed) == 1)
        #expect(try await failures(accepting.pipeline).isEmpty)
        #expect(try Self.values(database) == ["hall": "12|hall|hall-small", "den": "6|den|den-small", "barn": "30|barn|barn-large"])
        #expect(try Self.stamps(database, "kind", "input_versions") == ["hall": "area@1,label@1", "den": "area@1,label@2", "barn": "area@1,label@1"])

        // An input that derived fails: hall's kind, up to date until now, fails and is no longer up to date.
        let rejectingHall = FloorPipeline(labelVersion: 3, rejectedLabel: "hall")
        let third = try await Self.run(rejectingHall.pipeline, url)
        #expect(third.counts == RunCounts(unchanged: 2, failed: 1))
        #expect(try await failures(rejectingHall.pipeline) == [
            "hall|label|processor|label hall is rejected",
            "hall|kind|upstream|input processor label failed for this record",
        ])
        #expect(try Self.stamps(database, "kind", "current") == ["hall": "false", "den": "true", "barn": "true"])
        let status = try await store.status(of: rejectingHall.pipeline)
        #expect(status.map(\.upToDate) == [3, 2, 2] && status.map(\.failed) == [0, 1, 1])

        let acceptingAgain = FloorPipeline(labelVersion: 4)
        let fourth = try await Self.run(acceptingAgain.pipeline, url)
        // hall's label and kind derive to the values they held: nothing changes but the stamps.
        #expect(fourth.counts == RunCounts(unchanged: 3))
        #expect(acceptingAgain.calls.kind.load(ordering: .relaxed) == 1)
        #expect(try await failures(acceptingAgain.pipeline).isEmpty)
        #expect(try await store.status(of: acceptingAgain.pipeline).map(\.upToDate) == [3, 3, 3])
        #expect(try Self.stamps(database, "kind", "current") == ["hall": "true", "den": "true", "barn": "true"])
        #expect(try Self.stamps(database, "kind", "run_id")["hall"] == String(fourth.runID))
        #expect(try Self.values(database)["hall"] == "12|hall|hall-small")
    }

    /// A rollback puts back every field of each stamp the run replaced, a dependent's inputs digest and
    /// versions included: what the run kept of its stamps travels through `rederive_replaced`'s JSON.
    /// A dependent whose values the run did not change keeps the run's stamp, made stale by the restore.
    @Test func aRollbackPutsBackEveryFieldOfTheStampsTheRunReplaced() async throws {
        let first = FloorPipeline()
        let (url, database) = try await Self.database(first.pipeline)
        _ = try await Self.run(first.pipeline, url)
        let before = try Self.stampRows(database)
        #expect(before.count == 9)
        #expect(before.filter { $0[1] == "kind" }.allSatisfy { $0[7] != nullCellText && $0[8] == "area@1,label@1" })

        // Every area doubles; of the kinds, only hall's changes (small to large).
        let doubled = FloorPipeline(areaVersion: 2)
        let second = try await Self.run(doubled.pipeline, url)
        #expect(second.counts == RunCounts(changed: 3))
        #expect(try Self.stampRows(database) != before)

        let store = try await PostgresStore(url: url)
        defer { store.close() }
        let report = try await store.rollback(run: second.runID, pipelines: [doubled.pipeline])
        #expect(report.skipped.isEmpty && report.restored.count == 4)
        let after = try Self.stampRows(database)
        let replacedByTheRun = { (row: [String]) in row[1] != "kind" || row[0] == "hall" }
        #expect(after.filter(replacedByTheRun) == before.filter(replacedByTheRun))
        #expect(after.filter { !replacedByTheRun($0) }.map { [$0[0], $0[5], $0[8]] } == [["barn", "f", "area@2,label@1"], ["den", "f", "area@2,label@1"]])
    }
}
#endif
