import GRDB

/// Bookkeeping migration `rederive.v4`: stamps, failures and what runs replaced are keyed by pipeline.
///
/// Before it, a stamp was keyed by processor name and record id alone, so two pipelines on one
/// database that each had a processor `floor_area` shared stamps: one pipeline's up-to-date record hid
/// the other's stale one. Now the key is (pipeline, processor, record id).
///
/// SQLite cannot change a primary key, so each table is rebuilt. Rows written before the migration
/// cannot know their pipeline name (the store opens before any pipeline is named); they get the empty
/// name and ``adopt(_:table:_:)`` gives them to the pipeline that reads their table when it is prepared.
/// That is unambiguous: until now a table was read by one pipeline only.
///
/// The triggers of pipeline tables write into these tables by name. They are dropped and created again
/// around the rebuild, inside the migration's transaction, so no payload change goes unnoticed.
enum PipelineKeySchema {
    static func migrate(_ db: Database) throws {
        let triggers = try Row.fetchAll(db, sql: """
            SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'rederive\\_%' ESCAPE '\\'
            """)
        for trigger in triggers {
            try db.execute(sql: "DROP TRIGGER \(SQL.identifier(trigger["name"] as String))")
        }
        try db.execute(sql: """
            CREATE TABLE rederive_stamps_v4 (
                pipeline TEXT NOT NULL,
                processor TEXT NOT NULL,
                record_id INTEGER NOT NULL,
                source TEXT NOT NULL,
                version INTEGER NOT NULL,
                generation INTEGER NOT NULL,
                payload_digest INTEGER NOT NULL,
                current INTEGER NOT NULL,
                run_id INTEGER,
                derived_at TEXT NOT NULL,
                PRIMARY KEY (pipeline, processor, record_id)
            ) WITHOUT ROWID;
            INSERT INTO rederive_stamps_v4
            SELECT '', processor, record_id, source, version, generation, payload_digest, current, run_id, derived_at
            FROM rederive_stamps;
            DROP TABLE rederive_stamps;
            ALTER TABLE rederive_stamps_v4 RENAME TO rederive_stamps;
            CREATE INDEX rederive_stamps_by_version ON rederive_stamps (pipeline, processor, version, current);
            CREATE INDEX rederive_stamps_by_record ON rederive_stamps (source, record_id);

            CREATE TABLE rederive_failures_v4 (
                pipeline TEXT NOT NULL,
                processor TEXT NOT NULL,
                record_id INTEGER NOT NULL,
                source TEXT NOT NULL,
                version INTEGER NOT NULL,
                generation INTEGER NOT NULL,
                current INTEGER NOT NULL,
                kind TEXT NOT NULL,
                message TEXT NOT NULL,
                run_id INTEGER,
                failed_at TEXT NOT NULL,
                PRIMARY KEY (pipeline, processor, record_id)
            ) WITHOUT ROWID;
            INSERT INTO rederive_failures_v4
            SELECT '', processor, record_id, source, version, generation, current, kind, message, run_id, failed_at
            FROM rederive_failures;
            DROP TABLE rederive_failures;
            ALTER TABLE rederive_failures_v4 RENAME TO rederive_failures;
            CREATE INDEX rederive_failures_by_version ON rederive_failures (pipeline, processor, version, current);
            CREATE INDEX rederive_failures_by_record ON rederive_failures (source, record_id);
            CREATE INDEX rederive_failures_by_run ON rederive_failures (run_id);

            CREATE TABLE rederive_replaced_stamps_v4 (
                run_id INTEGER NOT NULL,
                pipeline TEXT NOT NULL,
                processor TEXT NOT NULL,
                record_id INTEGER NOT NULL,
                source TEXT NOT NULL,
                derived_generation INTEGER NOT NULL,
                had_stamp INTEGER NOT NULL,
                version INTEGER,
                generation INTEGER,
                payload_digest INTEGER,
                current INTEGER,
                stamp_run_id INTEGER,
                derived_at TEXT,
                PRIMARY KEY (run_id, pipeline, processor, record_id)
            ) WITHOUT ROWID;
            INSERT INTO rederive_replaced_stamps_v4
            SELECT run_id, '', processor, record_id, source, derived_generation, had_stamp,
                version, generation, payload_digest, current, stamp_run_id, derived_at
            FROM rederive_replaced_stamps;
            DROP TABLE rederive_replaced_stamps;
            ALTER TABLE rederive_replaced_stamps_v4 RENAME TO rederive_replaced_stamps;

            CREATE TABLE rederive_replaced_values_v4 (
                run_id INTEGER NOT NULL,
                pipeline TEXT NOT NULL,
                processor TEXT NOT NULL,
                record_id INTEGER NOT NULL,
                column_name TEXT NOT NULL,
                value,
                PRIMARY KEY (run_id, pipeline, processor, record_id, column_name)
            ) WITHOUT ROWID;
            INSERT INTO rederive_replaced_values_v4
            SELECT run_id, '', processor, record_id, column_name, value FROM rederive_replaced_values;
            DROP TABLE rederive_replaced_values;
            ALTER TABLE rederive_replaced_values_v4 RENAME TO rederive_replaced_values;
            """)
        for trigger in triggers {
            try db.execute(sql: trigger["sql"])
        }
    }

    /// Whether rows written before the migration still wait for their pipeline: a primary-key probe,
    /// since every open asks. The history tables are keyed by run first, so probing them would scan
    /// millions of rows; their old rows are adopted together with the stamps and failures of the same
    /// records, and a record with neither has nothing left to roll back.
    static func hasUnadopted(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: """
            SELECT EXISTS (SELECT 1 FROM rederive_stamps WHERE pipeline = '')
                OR EXISTS (SELECT 1 FROM rederive_failures WHERE pipeline = '')
            """) ?? false
    }

    /// Gives the rows of `table` written before the migration to `pipeline`, the one pipeline that reads it.
    static func adopt(_ pipeline: String, table: String, _ db: Database) throws {
        let arguments: StatementArguments = [pipeline, table]
        try db.execute(sql: "UPDATE rederive_stamps SET pipeline = ? WHERE pipeline = '' AND source = ?", arguments: arguments)
        try db.execute(sql: "UPDATE rederive_failures SET pipeline = ? WHERE pipeline = '' AND source = ?", arguments: arguments)
        try db.execute(sql: "UPDATE rederive_replaced_stamps SET pipeline = ? WHERE pipeline = '' AND source = ?", arguments: arguments)
        // Replaced values carry no table: they belong to the replaced stamp of the same run, processor and record.
        try db.execute(sql: """
            UPDATE rederive_replaced_values SET pipeline = ?
            WHERE pipeline = '' AND EXISTS (
                SELECT 1 FROM rederive_replaced_stamps k
                WHERE k.run_id = rederive_replaced_values.run_id AND k.pipeline = ? AND k.source = ?
                    AND k.processor = rederive_replaced_values.processor AND k.record_id = rederive_replaced_values.record_id
            )
            """, arguments: [pipeline, pipeline, table])
    }
}
