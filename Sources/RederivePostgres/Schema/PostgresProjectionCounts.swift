#if PostgreSQL
/// The count of current projections `status` shows, kept as ``PostgresStatusCounts`` keeps the others.
///
/// Kind `projections`, per pipeline (scope) and projection version (processor `''`): the rows of
/// `rederive_projections` whose generation is their record's in `rederive_records` (found by the
/// row's `source` and `record_id`). A projection counts at the pipeline's version, so a version bump
/// needs no write: `status` reads the count at the version it knows.
///
/// The count changes when either side of that match changes, so both tables have statement triggers
/// with transition tables that append deltas to `rederive_count_deltas`:
/// - a projection written, replaced or deleted (a commit, `projections --drop`, a reset) counts its
///   old and new rows against the records as they are;
/// - a record whose generation changes or that is inserted or deleted (the payload trigger) counts the
///   projections written from its old and new generations, locking them (`FOR SHARE`). Claims and
///   commits update records too but renew no generation: since bookkeeping version 10, that
///   trigger's function sees so in a query planned once per session and returns, where the count's
///   own query was planned and run at every statement (in a bump, 9.8 µs of statement time per
///   record, planning aside, became 3.0: BENCHMARKS.md).
///
/// Why that stays exact while both change at once: a commit locks its records (`FOR UPDATE`) before it
/// writes their projections, and the payload trigger changes a record only under the same row lock, so
/// the two never interleave. A deletion of projections takes no record lock; the record side's
/// `FOR SHARE` waits for it instead, and finds the rows gone once it commits, while the deletion, had
/// the record changed first, waits on that lock and reads the record's new generation (each statement
/// of a trigger function sees what committed before it, at read committed). Each projection is thus
/// counted out once, by whichever side came last. Nothing ever waits on the record side while holding
/// a projection, so the two locks never deadlock.
enum PostgresProjectionCounts {
    /// The trigger functions and triggers, each statement idempotent; applied after
    /// ``PostgresProjectionSchema/statements`` (the table must exist).
    static let statements: [String] = [
        "CREATE INDEX IF NOT EXISTS rederive_projections_record ON rederive_projections (source, record_id)",
    ] + ["INSERT", "UPDATE", "DELETE"].flatMap { operation in
        trigger("rederive_projections", operation, function: "rederive_count_projections_\(operation.lowercased())", body: projectionsChanged(operation))
    } + ["INSERT", "UPDATE", "DELETE"].flatMap { operation in
        trigger(
            "rederive_records", operation, function: "rederive_count_record_projections_\(operation.lowercased())",
            body: recordsChanged(operation), unlessNothingChanged: operation == "UPDATE" ? generationsUnchanged : nil
        )
    } + [
        "DROP TRIGGER IF EXISTS rederive_projections_truncated ON rederive_projections",
        """
        CREATE TRIGGER rederive_projections_truncated AFTER TRUNCATE ON rederive_projections
        FOR EACH STATEMENT EXECUTE FUNCTION rederive_count_truncated('projections')
        """,
        "DROP TRIGGER IF EXISTS rederive_records_projections_truncated ON rederive_records",
        """
        CREATE TRIGGER rederive_records_projections_truncated AFTER TRUNCATE ON rederive_records
        FOR EACH STATEMENT EXECUTE FUNCTION rederive_count_truncated('projections')
        """,
    ]

    /// Every current projection, per pipeline and version, as the tables are now.
    static let recount = """
        SELECT 'projections', p.pipeline, '', p.version, count(*) FROM rederive_projections p
        JOIN rederive_records r ON r.source = p.source AND r.record_id = p.record_id AND r.generation = p.generation
        GROUP BY p.pipeline, p.version
        """

    /// Whether an update of `rederive_records` renewed no generation, as claims and commits do: every
    /// new row's source, id and generation was an old row's (a record's source and id are never
    /// updated). A static query, planned once per session, where the count's own is planned at every
    /// statement; a set difference, never a join, so that a plan made for a claim of one record stays
    /// linear for a commit of thousands.
    private static let generationsUnchanged = """
        NOT EXISTS (
            SELECT source, record_id, generation FROM rederive_new_rows
            EXCEPT SELECT source, record_id, generation FROM rederive_old_rows
        )
        """

    /// The function, and a statement trigger with the transition tables `operation` has, on `table`.
    ///
    /// The function's statement joins the transition tables, and is planned for the rows of each
    /// statement (`EXECUTE`): PL/pgSQL would plan it once per session, for the row counts of the first
    /// statement the trigger saw. A claim of one record then made every later commit of that session
    /// join its old and new rows by a nested loop (1.5 s for a commit of 3,000 records); a large
    /// statement first made every later one-record write pass over all of `rederive_records`.
    ///
    /// When `unlessNothingChanged` holds, the statement changed no count and the function returns at once.
    private static func trigger(
        _ table: String, _ operation: String, function: String, body: String, unlessNothingChanged: String? = nil
    ) -> [String] {
        var transitions: [String] = []
        if operation != "DELETE" { transitions.append("NEW TABLE AS rederive_new_rows") }
        if operation != "INSERT" { transitions.append("OLD TABLE AS rederive_old_rows") }
        let shortcut = unlessNothingChanged.map { "IF \($0) THEN\n        RETURN NULL;\n    END IF;\n    " } ?? ""
        return [
            """
            CREATE OR REPLACE FUNCTION \(function)() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                \(shortcut)EXECUTE $count$
                INSERT INTO rederive_count_deltas (kind, scope, processor, version, delta)
                SELECT 'projections', pipeline, '', version, sum(delta) FROM (
                    \(body)
                ) c (pipeline, version, delta)
                GROUP BY pipeline, version HAVING sum(delta) <> 0
                $count$;
                RETURN NULL;
            END;
            $$
            """,
            "DROP TRIGGER IF EXISTS \(function) ON \(table)",
            """
            CREATE TRIGGER \(function) AFTER \(operation) ON \(table)
            REFERENCING \(transitions.joined(separator: " ")) FOR EACH STATEMENT EXECUTE FUNCTION \(function)()
            """,
        ]
    }

    /// `pipeline, version, ±1` for the projection rows of a statement on `rederive_projections` whose
    /// generation is their record's.
    private static func projectionsChanged(_ operation: String) -> String {
        func matching(_ rows: String, _ sign: Int) -> String {
            """
            SELECT x.pipeline, x.version, \(sign) FROM \(rows) x
            JOIN rederive_records r ON r.source = x.source AND r.record_id = x.record_id AND r.generation = x.generation
            """
        }
        var parts: [String] = []
        if operation != "DELETE" { parts.append(matching("rederive_new_rows", 1)) }
        if operation != "INSERT" { parts.append(matching("rederive_old_rows", -1)) }
        return parts.joined(separator: "\nUNION ALL\n")
    }

    /// `pipeline, version, ±1` for the projections, locked, written from a record's generation that a
    /// statement on `rederive_records` ended (-1) or began (+1). Updates that keep the generation
    /// (claims, commits) match nothing and lock nothing.
    private static func recordsChanged(_ operation: String) -> String {
        switch operation {
        case "INSERT", "DELETE":
            let (rows, sign) = operation == "INSERT" ? ("rederive_new_rows", 1) : ("rederive_old_rows", -1)
            return """
                SELECT p.pipeline, p.version, \(sign) FROM \(rows) x
                JOIN rederive_projections p ON p.source = x.source AND p.record_id = x.record_id AND p.generation = x.generation
                FOR SHARE OF p
                """
        default:
            return """
                SELECT p.pipeline, p.version, CASE WHEN p.generation = n.generation THEN 1 ELSE -1 END
                FROM rederive_old_rows o JOIN rederive_new_rows n ON n.source = o.source AND n.record_id = o.record_id
                JOIN rederive_projections p ON p.source = o.source AND p.record_id = o.record_id
                    AND p.generation IN (o.generation, n.generation)
                WHERE o.generation <> n.generation
                FOR SHARE OF p
                """
        }
    }
}
#endif
