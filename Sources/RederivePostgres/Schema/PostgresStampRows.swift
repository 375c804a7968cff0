#if PostgreSQL

/// `rederive_stamps` since bookkeeping version 11: one row per record, pipeline and processor, as on
/// SQLite, where up to version 10 one row per record held every processor's entry in a JSON object.
///
/// A row says which `version` of the processor produced the record's stored values, from which
/// payload `generation` and `payload_digest`, in which run, and whether it is still `current`
/// (cleared by the payload trigger, by invalidation and by a failure of the processor). A dependent
/// processor's row also keeps what it derived from: `inputs_digest`, the `InputDigest` of its
/// inputs' values, and `input_versions`, as in `"floor_area@2,section_labels@1"`.
///
/// The key leads with the record, so that a claim reads all of a record's stamps in one scan of it
/// (``PostgresStore/staleCondition(_:_:digests:failureKinds:)``). Only the key and the record's source are
/// indexed, and pages keep room (fillfactor 70), so that a commit's rewrite of a row is a HOT update
/// of a few integers. Counts of up-to-date records come
/// from `rederive_counts`, kept by a statement trigger that reads each changed row as it is, where
/// version 10's took every entry of the old and new JSON objects apart.
enum PostgresStampRows {
    static let statements: [String] = [
        // Version 10's table steps aside, its entries copied into the new one below.
        """
        DO $$
        BEGIN
            IF EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('rederive_stamps')
                       AND attname = 'processors' AND NOT attisdropped) THEN
                ALTER TABLE rederive_stamps RENAME TO rederive_stamps_v10;
                ALTER INDEX IF EXISTS rederive_stamps_pkey RENAME TO rederive_stamps_v10_pkey;
                ALTER INDEX IF EXISTS rederive_stamps_by_record RENAME TO rederive_stamps_v10_by_record;
            END IF;
        END
        $$
        """,
        """
        CREATE TABLE IF NOT EXISTS rederive_stamps (
            pipeline text NOT NULL,
            processor text NOT NULL,
            record_id bigint NOT NULL,
            source text NOT NULL,
            version integer NOT NULL,
            generation bigint NOT NULL,
            payload_digest bigint NOT NULL,
            current boolean NOT NULL,
            run_id bigint NOT NULL,
            inputs_digest bigint,
            input_versions text,
            PRIMARY KEY (pipeline, record_id, processor)
        ) WITH (fillfactor = 70)
        """,
        "CREATE INDEX IF NOT EXISTS rederive_stamps_by_record ON rederive_stamps (source, record_id)",
        // Each entry of version 10's rows becomes a row, and the grants on its table carry over; the
        // pipelines' payload triggers, which cleared `current` inside the JSON, clear the column
        // instead until their pipeline is next prepared and its trigger written anew.
        """
        DO $$
        DECLARE
            tracker oid;
            privilege record;
        BEGIN
            IF to_regclass('rederive_stamps_v10') IS NOT NULL THEN
                INSERT INTO rederive_stamps (pipeline, processor, record_id, source, version, generation, payload_digest,
                    current, run_id, inputs_digest, input_versions)
                SELECT o.pipeline, e.key, o.record_id, o.source, (e.value ->> 'version')::integer,
                    (e.value ->> 'generation')::bigint, (e.value ->> 'digest')::bigint, (e.value ->> 'current')::boolean,
                    (e.value ->> 'run')::bigint, (e.value ->> 'inputs_digest')::bigint, e.value ->> 'input_versions'
                FROM rederive_stamps_v10 o, jsonb_each(o.processors) e;
                -- The roles that run or read keep what they were granted on the old table.
                FOR privilege IN SELECT a.grantee, a.privilege_type, a.is_grantable
                    FROM pg_class c, aclexplode(c.relacl) a
                    WHERE c.oid = 'rederive_stamps_v10'::regclass AND a.grantee <> c.relowner LOOP
                    EXECUTE format('GRANT %s ON rederive_stamps TO %s%s', privilege.privilege_type,
                        CASE WHEN privilege.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(privilege.grantee)) END,
                        CASE WHEN privilege.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END);
                END LOOP;
                DROP TABLE rederive_stamps_v10;
            END IF;
            FOR tracker IN SELECT oid FROM pg_proc WHERE prosrc LIKE '%rederive_stale_stamps(processors)%'
                AND pronamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) LOOP
                EXECUTE replace(pg_get_functiondef(tracker), 'SET processors = rederive_stale_stamps(processors)', 'SET current = false');
            END LOOP;
        END
        $$
        """,
        "DROP FUNCTION IF EXISTS rederive_stale_stamps(jsonb)",
    ]
}
#endif
