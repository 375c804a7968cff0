#if PostgreSQL
import Foundation
import Rederive
import RederivePostgres
import RederivePostgresTestSupport
import RederiveTestSupport
import Testing

/// Bookkeeping version 11 keeps a row per record and processor in `rederive_stamps`, where version 10
/// kept one JSON object per record. A database of version 10 upgrades with every stamp, every count
/// and its payload triggers intact, before any pipeline is prepared again.
@Suite("stamps upgraded from version 10 on PostgreSQL", .enabled(if: PostgresServer.testsRun, PostgresServer.skipReason), .serialized, .timeLimit(.minutes(5)))
struct PostgresStampUpgradeTests {
    /// Every stamp, as `key processor version generation digest current run inputs versions`, in order.
    static func stamps(_ database: String) throws -> [String] {
        try PostgresServer.shared().psqlRows(database, """
            SELECT p.key, s.processor, s.version, s.generation, s.payload_digest, s.current, s.run_id,
                coalesce(s.inputs_digest::text, '-'), coalesce(s.input_versions, '-')
            FROM rederive_stamps s JOIN plans p ON p.id = s.record_id ORDER BY p.key, s.processor
            """).map { $0.joined(separator: " ") }
    }

    /// Puts the stamps back as version 10 kept them: one JSON object per record, and the payload
    /// triggers clearing `current` inside it (through the function version 10 had for it).
    static let downgrade = """
        ALTER TABLE rederive_stamps RENAME TO rederive_stamps_v11;
        ALTER INDEX rederive_stamps_pkey RENAME TO rederive_stamps_v11_pkey;
        ALTER INDEX rederive_stamps_by_record RENAME TO rederive_stamps_v11_by_record;
        CREATE TABLE rederive_stamps (
            pipeline text NOT NULL, record_id bigint NOT NULL, source text NOT NULL, processors jsonb NOT NULL,
            PRIMARY KEY (pipeline, record_id));
        CREATE INDEX rederive_stamps_by_record ON rederive_stamps (source, record_id);
        INSERT INTO rederive_stamps SELECT pipeline, record_id, source, jsonb_object_agg(processor, jsonb_strip_nulls(jsonb_build_object(
            'current', current, 'version', version, 'generation', generation, 'digest', payload_digest, 'run', run_id,
            'inputs_digest', inputs_digest, 'input_versions', input_versions)))
        FROM rederive_stamps_v11 GROUP BY pipeline, record_id, source;
        DROP TABLE rederive_stamps_v11;
        CREATE FUNCTION rederive_stale_stamps(stamps jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
            SELECT coalesce(jsonb_object_agg(key, value || '{"current": false}'), '{}'::jsonb) FROM jsonb_each(stamps)
        $$;
        DO $$
        DECLARE
            tracker oid;
        BEGIN
            FOR tracker IN SELECT oid FROM pg_proc WHERE prosrc LIKE '%UPDATE rederive_stamps SET current = false%' LOOP
                EXECUTE regexp_replace(pg_get_functiondef(tracker),
                    'UPDATE rederive_stamps SET current = false(\\s+WHERE [^;]*) AND current;',
                    'UPDATE rederive_stamps SET processors = rederive_stale_stamps(processors)\\1;');
            END LOOP;
        END
        $$;
        UPDATE rederive_bookkeeping SET version = 10;
        """

    @Test(arguments: [false, true])
    func aVersion10DatabaseKeepsEveryStampAndTracksPayloadsAtOnce(inline: Bool) async throws {
        let floor = FloorPipeline(rejectedLabel: "den", layout: inline ? .inline : nil)
        let (url, database) = try await PostgresStatusCountTests.derivedDatabase(floor)
        let before = try Self.stamps(database)
        // Three processors of 12 records, less the four dens' label and kind (label rejects dens).
        #expect(before.count == 28, "\(before.count) stamps")
        _ = try PostgresServer.shared().psql(database, Self.downgrade)
        let tracker = try PostgresServer.shared().psqlRows(
            database, "SELECT count(*) FROM pg_proc WHERE prosrc LIKE '%rederive_stale_stamps(processors)%'"
        )
        #expect(tracker == [["1"]], "the downgrade put back version 10's payload trigger")
        // A role granted rights on version 10's table keeps them on version 11's.
        _ = try PostgresServer.shared().psql(database, """
            DO $$ BEGIN CREATE ROLE rederive_stamp_upgrade_reader; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
            GRANT SELECT, UPDATE ON rederive_stamps TO rederive_stamp_upgrade_reader;
            """)

        let store = try await PostgresStore(url: url)
        defer { store.close() }
        #expect(try Self.stamps(database) == before)
        let rights = try PostgresServer.shared().psqlRows(database, """
            SELECT has_table_privilege('rederive_stamp_upgrade_reader', 'rederive_stamps', 'UPDATE'),
                has_table_privilege('rederive_stamp_upgrade_reader', 'rederive_stamps', 'DELETE')
            """)
        #expect(rights == [["t", "f"]], "granted UPDATE, not DELETE: \(rights)")
        try await PostgresStatusCountTests.expectExact(store, floor.pipeline, after: "the upgrade")
        // The payload trigger works before the pipeline is prepared again: a replaced payload makes
        // its record stale, and only it.
        _ = try PostgresServer.shared().psql(
            database, #"UPDATE plans SET payload = convert_to('{"label": "hall", "width": 9, "depth": 4}', 'UTF8') WHERE key = 'p0'"#
        )
        let plan = RunPlan(pipeline: floor.pipeline)
        #expect(try await store.staleCount(plan) == 1)
        try await PostgresStatusCountTests.expectExact(store, floor.pipeline, after: "a payload replaced after the upgrade")
        let summary = try await PostgresStatusCountTests.run(floor.pipeline, store)
        #expect(summary.counts.changed + summary.counts.unchanged == 1, "\(summary.counts)")
        #expect(try Self.stamps(database).filter { !$0.hasPrefix("p0 ") } == before.filter { !$0.hasPrefix("p0 ") })
        try await PostgresStatusCountTests.expectExact(store, floor.pipeline, after: "a run after the upgrade")
    }
}
#endif
