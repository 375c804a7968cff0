#if PostgreSQL
import PostgresNIO

/// The counts `status` shows, kept as rederive's tables change, so that reading them costs a few rows
/// rather than a pass over every stamp row.
///
/// What is counted, per key `(kind, scope, processor, version)`:
/// - `records`: the rows of `rederive_records` of a source table (scope: the table; processor `''`, version 0);
/// - `current`: the rows of `rederive_stamps` whose `current` is true, per pipeline, processor
///   and the entry's version: a processor's up-to-date records are the count at its present version;
/// - `failed`: the rows of `rederive_failures` whose `current` is true, per pipeline, processor and version;
/// - `projections`: the current projections, per pipeline and projection version (``PostgresProjectionCounts``).
///
/// Statement triggers with transition tables on the three tables append, per statement that changes a
/// count, one row per changed key to `rederive_count_deltas`, in the writer's transaction: whoever
/// writes (a commit, a failure, an invalidation, a rollback, a reset, a migration, the payload trigger
/// when another program replaces or deletes a payload), the counts change in the same snapshot as the
/// rows they count. Deltas are only ever inserted, so concurrent writers on several hosts never wait
/// for each other on a counter row. Now and then a worker folds them into `rederive_counts`
/// (``fold(_:_:)``, under an advisory lock, skipped when another worker is folding); a count is its
/// total plus its pending deltas, read in one statement, so a fold never shows half-done.
///
/// Updates of `rederive_records` (claims, commits, renewed generations) change no record count: a
/// record's `source` and `record_id` are never updated. A renewed generation changes the projection
/// count, which has triggers of its own there.
enum PostgresStatusCounts {
    /// The tables, trigger functions and triggers, each statement idempotent; applied with the rest of
    /// ``PostgresSchema/statements``, whose transaction then runs ``recount(_:_:)``.
    static let statements: [String] = [
        """
        CREATE TABLE IF NOT EXISTS rederive_counts (
            kind text NOT NULL,
            scope text NOT NULL,
            processor text NOT NULL,
            version integer NOT NULL,
            count bigint NOT NULL,
            PRIMARY KEY (kind, scope, processor, version)
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS rederive_count_deltas (
            kind text NOT NULL,
            scope text NOT NULL,
            processor text NOT NULL,
            version integer NOT NULL,
            delta bigint NOT NULL
        )
        """,
        """
        CREATE OR REPLACE FUNCTION rederive_fold_counts() RETURNS bigint LANGUAGE plpgsql AS $$
        DECLARE
            folded bigint;
        BEGIN
            IF NOT pg_try_advisory_xact_lock(hashtext('rederive counts')) THEN
                RETURN 0;
            END IF;
            -- A statement of its own, so that its snapshot follows the lock: it sees every earlier fold.
            WITH moved AS (
                DELETE FROM rederive_count_deltas RETURNING kind, scope, processor, version, delta
            ), summed AS (
                SELECT kind, scope, processor, version, sum(delta)::bigint AS delta, count(*) AS rows
                FROM moved GROUP BY kind, scope, processor, version
            ), written AS (
                INSERT INTO rederive_counts AS c (kind, scope, processor, version, count)
                SELECT kind, scope, processor, version, delta FROM summed
                ON CONFLICT (kind, scope, processor, version) DO UPDATE SET count = c.count + excluded.count
            )
            SELECT coalesce(sum(rows), 0) INTO folded FROM summed;
            DELETE FROM rederive_counts WHERE count = 0;
            RETURN folded;
        END;
        $$
        """,
        """
        CREATE OR REPLACE FUNCTION rederive_count_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_advisory_xact_lock(hashtext('rederive counts'));
            DELETE FROM rederive_count_deltas WHERE kind = TG_ARGV[0];
            DELETE FROM rederive_counts WHERE kind = TG_ARGV[0];
            RETURN NULL;
        END;
        $$
        """,
    ] + Counted.allCases.flatMap(\.statements)

    /// A table whose rows are counted, and how.
    enum Counted: CaseIterable {
        case records, stamps, failures

        var table: String {
            switch self {
            case .records: "rederive_records"
            case .stamps: "rederive_stamps"
            case .failures: "rederive_failures"
            }
        }

        var kind: String {
            switch self {
            case .records: "records"
            case .stamps: "current"
            case .failures: "failed"
            }
        }

        /// The statements that change counts: a record's source and id never change.
        var operations: [String] {
            self == .records ? ["INSERT", "DELETE"] : ["INSERT", "UPDATE", "DELETE"]
        }

        /// `SELECT kind, scope, processor, version, <sign>` for each counted entry of the rows of `rows`.
        func entries(of rows: String, sign: Int) -> String {
            switch self {
            case .records:
                "SELECT 'records', x.source, '', 0, \(sign) FROM \(rows) x"
            case .stamps, .failures:
                "SELECT '\(kind)', x.pipeline, x.processor, x.version, \(sign) FROM \(rows) x WHERE x.current"
            }
        }

        /// The trigger function for `operation`: the counted entries of the new rows less those of the
        /// old, per key, appended where they differ.
        func function(_ operation: String) -> String {
            var parts: [String] = []
            if operation != "DELETE" { parts.append(entries(of: "rederive_new_rows", sign: 1)) }
            if operation != "INSERT" { parts.append(entries(of: "rederive_old_rows", sign: -1)) }
            return """
                CREATE OR REPLACE FUNCTION \(functionName(operation))() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    INSERT INTO rederive_count_deltas (kind, scope, processor, version, delta)
                    SELECT kind, scope, processor, version, sum(delta) FROM (
                        \(parts.joined(separator: "\nUNION ALL\n"))
                    ) c (kind, scope, processor, version, delta)
                    GROUP BY kind, scope, processor, version HAVING sum(delta) <> 0;
                    RETURN NULL;
                END;
                $$
                """
        }

        func functionName(_ operation: String) -> String {
            "rederive_count_\(table.dropFirst("rederive_".count))_\(operation.lowercased())"
        }

        var statements: [String] {
            operations.flatMap { operation in
                var transitions: [String] = []
                if operation != "DELETE" { transitions.append("NEW TABLE AS rederive_new_rows") }
                if operation != "INSERT" { transitions.append("OLD TABLE AS rederive_old_rows") }
                let name = functionName(operation)
                return [
                    function(operation),
                    "DROP TRIGGER IF EXISTS \(name) ON \(table)",
                    """
                    CREATE TRIGGER \(name) AFTER \(operation) ON \(table)
                    REFERENCING \(transitions.joined(separator: " ")) FOR EACH STATEMENT EXECUTE FUNCTION \(name)()
                    """,
                ]
            } + [
                "DROP TRIGGER IF EXISTS \(table)_truncated ON \(table)",
                """
                CREATE TRIGGER \(table)_truncated AFTER TRUNCATE ON \(table)
                FOR EACH STATEMENT EXECUTE FUNCTION rederive_count_truncated('\(kind)')
                """,
            ]
        }

        /// Every counted entry of the table, per key, as it is now.
        var recount: String {
            "SELECT kind, scope, processor, version, sum(sign)::bigint FROM (\(entries(of: table, sign: 1))) c (kind, scope, processor, version, sign) GROUP BY kind, scope, processor, version"
        }
    }

    /// Counts everything once, from the tables as they are: run where the triggers were just created,
    /// in the same transaction, which holds the tables locked against writers until it commits.
    static func recount(_ connection: PostgresConnection, _ logger: Logger) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(hashtext('rederive counts'))", logger: logger)
        try await connection.query("DELETE FROM rederive_count_deltas", logger: logger)
        try await connection.query("DELETE FROM rederive_counts", logger: logger)
        let counts = (Counted.allCases.map(\.recount) + [PostgresProjectionCounts.recount]).joined(separator: " UNION ALL ")
        try await connection.query(
            PostgresQuery(unsafeSQL: "INSERT INTO rederive_counts (kind, scope, processor, version, count) \(counts)"), logger: logger
        )
    }

    /// Folds the pending deltas into the totals, unless another session is folding; returns how many
    /// delta rows it folded.
    @discardableResult
    static func fold(_ connection: PostgresConnection, _ logger: Logger) async throws -> Int {
        try await connection.query("SELECT rederive_fold_counts()", logger: logger).collect { try Int($0.decode(Int64.self)) }.first ?? 0
    }
}
#endif
