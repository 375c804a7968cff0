#if PostgreSQL
import Foundation
import Rederive
import RederivePostgres
import RederivePostgresTestSupport
import RederiveTestSupport
import Testing

/// A claim picks stale records by their stamps as its snapshot saw them, and locks each row after:
/// what changed in between must not be derived by the old stamps.
@Suite("a claim and what changed since its snapshot", .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .timeLimit(.minutes(3)))
struct PostgresClaimSnapshotTests {
    /// A claim's pick is held, after its snapshot and before it locks den, by a row-level security
    /// policy on the stamps that sleeps once, for den, in the pick's statement (the claiming role is
    /// not the tables' owner, so the policy applies to it). Meanwhile den's payload is replaced: every
    /// processor is stale for it now, where the pick's snapshot saw only the bumped one.
    @Test func aPayloadWrittenBetweenAPicksSnapshotAndItsLockIsDerivedByEveryProcessor() async throws {
        let first = FloorPipeline()
        let (url, database) = try await PostgresDependentTests.database(first.pipeline)
        _ = try await PostgresDependentTests.run(first.pipeline, url)
        let server = try PostgresServer.shared()
        let den = try server.psql(database, "SELECT id FROM plans WHERE key = 'den'").trimmingCharacters(in: .whitespacesAndNewlines)
        let role = "claimer_\(database.suffix(8))"
        try server.psql(database, """
            CREATE SEQUENCE claim_pauses;
            CREATE FUNCTION claim_pause(id bigint) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
            BEGIN
                IF id = \(den) AND current_query() LIKE 'WITH picked%' AND nextval('claim_pauses') = 1 THEN
                    PERFORM pg_sleep(3);
                END IF;
                RETURN true;
            END $$;
            CREATE ROLE \(role) LOGIN;
            GRANT ALL ON ALL TABLES IN SCHEMA public TO \(role);
            GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO \(role);
            ALTER TABLE rederive_stamps ENABLE ROW LEVEL SECURITY;
            CREATE POLICY seen ON rederive_stamps FOR SELECT TO \(role) USING (claim_pause(record_id));
            CREATE POLICY written ON rederive_stamps FOR INSERT TO \(role) WITH CHECK (true);
            CREATE POLICY changed ON rederive_stamps FOR UPDATE TO \(role) USING (true);
            CREATE POLICY removed ON rederive_stamps FOR DELETE TO \(role) USING (true);
            """)

        // Area doubles: only area, and kind after it, are stale for any record.
        let doubled = FloorPipeline(areaVersion: 2)
        let store = try await PostgresStore(url: server.url(database: database, user: role))
        defer { store.close() }
        var configuration = Runner.Configuration(parallelism: 1, batchSize: 3)
        configuration.claimSize = 3
        let runner = Runner(store: store, pipelines: [doubled.pipeline], configuration: configuration)
        let run = Task { try await runner.run() }

        let paused = await eventually(within: 60) {
            let sessions = try? server.psql(database, """
                SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'PgSleep' AND query LIKE 'WITH picked%'
                """)
            return sessions?.trimmingCharacters(in: .whitespacesAndNewlines) == "1"
        }
        try #require(paused, "no claim paused on den's stamps")
        try server.psql(database, #"UPDATE plans SET payload = '{"label": "den", "width": 4, "depth": 5}' WHERE key = 'den'"#)

        let summary = try await run.value
        #expect(summary.counts.failed == 0)
        #expect(try PostgresDependentTests.values(database) == ["hall": "24|hall|hall-large", "den": "40|den|den-large", "barn": "60|barn|barn-large"])
        let checker = try await PostgresStore(url: url)
        defer { checker.close() }
        #expect(try await checker.staleCount(RunPlan(pipeline: doubled.pipeline)) == 0)
    }
}
#endif
