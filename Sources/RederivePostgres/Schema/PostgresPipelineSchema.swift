#if PostgreSQL
import PostgresNIO
import Rederive
import RederiveSQL

/// Brings a database in line with what a pipeline declares: its table, its derived columns, and the
/// PL/pgSQL trigger that renews a record's generation whoever writes its payload. The shared
/// ``RederiveSQL/PipelineSchema`` in this store's dialect, with PostgreSQL's reading of a table's
/// columns and its trigger.
typealias PostgresPipelineSchema = PipelineSchema<PostgresSQL>

extension PipelineSchema where Dialect == PostgresSQL {
    /// What is missing, found without writing anything.
    func changes(_ connection: PostgresConnection, _ logger: Logger) async throws -> Changes {
        let columns = try await Self.columns(of: pipeline.table, connection, logger)
        var companion: [String: String]?
        if let name = tables.companionTable {
            companion = try await Self.columns(of: name, connection, logger)
        }
        // A table without columns is a table that does not exist.
        var changes = try changes(
            table: columns.isEmpty ? nil : columns,
            companion: companion.flatMap { $0.isEmpty ? nil : $0 }
        )
        var check = SQLStatement()
        check.sql = """
            SELECT p.prosrc FROM pg_trigger g JOIN pg_proc p ON p.oid = g.tgfoid
            WHERE g.tgrelid = to_regclass(\(check.bind(tables.table))) AND g.tgname = \(check.bind(tables.trackerName))
            """
        let installed = changes.createTable ? [] : try await connection.run(check, logger: logger).collect { try $0.decode(String.self) }
        var notifier = SQLStatement()
        notifier.sql = """
            SELECT count(*) FROM pg_trigger WHERE tgrelid = to_regclass(\(notifier.bind(tables.table)))
            AND tgname = \(notifier.bind(tables.notifierName))
            """
        let notifies = changes.createTable ? false : try await connection.count(notifier, logger: logger) > 0
        var holder = SQLStatement()
        holder.sql = "SELECT prosrc FROM pg_proc WHERE oid = to_regprocedure(\(holder.bind(holderSignature)))"
        let holds = changes.createTable ? [] : try await connection.run(holder, logger: logger).collect { try $0.decode(String.self) }
        changes.replaceTracking = installed.first != trackerBody(payloadType: changes.payloadType) || !notifies
            || holds.first != holderBody
        return changes
    }

    /// The table's columns and their types (`information_schema`'s data_type), in the current schema.
    static func columns(of table: String, _ connection: PostgresConnection, _ logger: Logger) async throws -> [String: String] {
        var statement = SQLStatement()
        statement.sql = """
            SELECT column_name::text, data_type::text FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = \(statement.bind(table))
            """
        let rows = try await connection.run(statement, logger: logger).collect { try $0.decode((String, String).self) }
        return Dictionary(rows, uniquingKeysWith: { first, _ in first })
    }

    func apply(_ changes: Changes, _ connection: PostgresConnection, _ logger: Logger) async throws {
        let t = tables
        for statement in statements(for: changes) {
            try await execute(statement, connection, logger)
        }
        if changes.replaceTracking {
            let name = PostgresSQL.identifier(t.trackerName)
            // SECURITY DEFINER: an app that writes payloads needs no rights on rederive's tables.
            try await execute("""
                CREATE OR REPLACE FUNCTION \(name)() RETURNS trigger LANGUAGE plpgsql
                SECURITY DEFINER SET search_path FROM CURRENT AS \(PostgresSQL.literal(trackerBody(payloadType: changes.payloadType)))
                """, connection, logger)
            try await execute("DROP TRIGGER IF EXISTS \(name) ON \(t.table)", connection, logger)
            try await execute("""
                CREATE TRIGGER \(name) AFTER INSERT OR DELETE OR UPDATE OF \(t.payload), \(t.id) ON \(t.table)
                FOR EACH ROW EXECUTE FUNCTION \(name)()
                """, connection, logger)
            // SECURITY DEFINER too: locking rows takes UPDATE on the table, which a role that runs in the
            // companion layout has not (docs/postgresql.md's grants).
            try await execute("""
                CREATE OR REPLACE FUNCTION \(holderSignature) RETURNS void LANGUAGE plpgsql
                SECURITY DEFINER SET search_path FROM CURRENT AS \(PostgresSQL.literal(holderBody))
                """, connection, logger)
            // One notification per statement, however many rows it writes: a row trigger would queue
            // every inserting transaction's commit behind the server's one notification lock, row by row.
            let notifier = PostgresSQL.identifier(t.notifierName)
            try await execute("""
                CREATE OR REPLACE FUNCTION rederive_notify_changes() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    PERFORM pg_notify(\(PostgresSQL.literal(PostgresStore.changeChannel)), TG_TABLE_NAME);
                    RETURN NULL;
                END;
                $$
                """, connection, logger)
            try await execute("DROP TRIGGER IF EXISTS \(notifier) ON \(t.table)", connection, logger)
            try await execute("""
                CREATE TRIGGER \(notifier) AFTER INSERT OR UPDATE OF \(t.payload), \(t.id) ON \(t.table)
                FOR EACH STATEMENT EXECUTE FUNCTION rederive_notify_changes()
                """, connection, logger)
            try await reconcile(connection, logger)
        }
    }

    /// The trigger's PL/pgSQL: an inserted or replaced payload gets a new generation and makes the
    /// record's stamps and failures not current; a deleted record takes its bookkeeping with it (and
    /// its companion row, by the foreign key). Writing derived columns alone changes nothing.
    func trackerBody(payloadType: String?) -> String {
        let t = tables
        let source = PostgresSQL.literal(pipeline.table)
        // json has no equality operator: its payloads are compared as text.
        let cast = payloadType == "json" ? "::text" : ""
        return """

            BEGIN
                IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND OLD.\(t.id) IS DISTINCT FROM NEW.\(t.id)) THEN
                    DELETE FROM rederive_records WHERE source = \(source) AND record_id = OLD.\(t.id);
                    DELETE FROM rederive_stamps WHERE source = \(source) AND record_id = OLD.\(t.id);
                    DELETE FROM rederive_failures WHERE source = \(source) AND record_id = OLD.\(t.id);
                END IF;
                IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND (OLD.\(t.payload)\(cast) IS DISTINCT FROM NEW.\(t.payload)\(cast)
                    OR OLD.\(t.id) IS DISTINCT FROM NEW.\(t.id))) THEN
                    INSERT INTO rederive_records (source, record_id, generation)
                    VALUES (\(source), NEW.\(t.id), nextval('rederive_generations'))
                    ON CONFLICT (source, record_id) DO UPDATE SET generation = excluded.generation, committed_run = NULL;
                    UPDATE rederive_stamps SET current = false
                    WHERE source = \(source) AND record_id = NEW.\(t.id) AND current;
                    UPDATE rederive_failures SET current = false
                    WHERE source = \(source) AND record_id = NEW.\(t.id) AND current;
                END IF;
                RETURN NULL;
            END;

            """
    }

    /// The function a commit (or a rollback) calls with its records' ids and the generations it read,
    /// before it locks their bookkeeping rows: it locks their rows of the pipeline's table, in the
    /// order of their ids.
    var holderSignature: String { "\(PostgresSQL.identifier(tables.holderName))(bigint[], bigint[])" }

    /// The holder's PL/pgSQL. An app's `DELETE` locks the table's row, then, by the trigger, the
    /// record's bookkeeping row; a commit that locked the bookkeeping row first and then waited for the
    /// table's row (by its companion row's foreign key, or by writing inline columns) would deadlock
    /// with it. Taking the table's rows first, the commit and the app wait for each other instead.
    ///
    /// `FOR KEY SHARE` in the companion layout, as the foreign key's check takes it, so that an app's
    /// payload updates go on beside a commit; `FOR NO KEY UPDATE` inline, as the commit's own update of
    /// the row takes it, so that they wait at the row rather than at its bookkeeping. Only a record at
    /// the generation the caller names is locked, only until the caller's transaction ends, and only
    /// for a caller that may update the bookkeeping (a role that runs): the function lends no more
    /// than that. An owner that may not update the table (locking a row needs it) leaves the rows
    /// unlocked, as commits did before.
    var holderBody: String {
        let t = tables
        let mode = pipeline.layout == .inline ? "FOR NO KEY UPDATE" : "FOR KEY SHARE"
        return """

            BEGIN
                IF has_table_privilege(\(PostgresSQL.literal(t.table)), 'UPDATE')
                    AND has_table_privilege(session_user, 'rederive_records', 'UPDATE') THEN
                    PERFORM 1 FROM \(t.table) t
                    JOIN unnest($1, $2) AS c(id, generation) ON t.\(t.id) = c.id
                    JOIN rederive_records r ON r.source = \(t.source) AND r.record_id = c.id AND r.generation = c.generation
                    ORDER BY t.\(t.id) \(mode) OF t;
                END IF;
            END;

            """
    }

    /// Brings the bookkeeping in line with the table after a time without the trigger.
    private func reconcile(_ connection: PostgresConnection, _ logger: Logger) async throws {
        let t = tables
        let source = PostgresSQL.literal(pipeline.table)
        try await execute("""
            INSERT INTO rederive_records (source, record_id, generation)
            SELECT \(source), \(t.id), nextval('rederive_generations') FROM \(t.table)
            ON CONFLICT (source, record_id) DO NOTHING
            """, connection, logger)
        for table in ["rederive_records", "rederive_stamps", "rederive_failures"] {
            try await execute("""
                DELETE FROM \(table) b WHERE b.source = \(source)
                AND NOT EXISTS (SELECT 1 FROM \(t.table) t WHERE t.\(t.id) = b.record_id)
                """, connection, logger)
        }
    }

    private func execute(_ sql: String, _ connection: PostgresConnection, _ logger: Logger) async throws {
        try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
    }
}
#endif
