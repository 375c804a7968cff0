#if PostgreSQL
import PostgresNIO
import Rederive

/// rederive's tables on PostgreSQL, and what a record costs in them.
///
/// - `rederive_records`: per record of a pipeline's table, the **generation** of its payload (from the
///   sequence `rederive_generations`, renewed by a PL/pgSQL trigger whoever writes the payload),
///   `claimed_by`, the lease token of the worker deriving it now (NULL when unclaimed), and
///   `committed_run`, the run whose commit last released it (cleared by the trigger): the claims of
///   that run pass over the record without reading its stamps, so that a worker passing through what
///   other workers derived costs the server a row, not a join.
/// - `rederive_stamps` (version 11): **one row per record, pipeline and processor**, as on SQLite:
///   the version, generation, payload digest and run that produced the stored values, and `current`
///   (cleared by the trigger, by invalidation and by a failure of the processor); see
///   ``PostgresStampRows``. Up to version 10 a record had one row whose JSON object held every
///   processor's entry; version 11 moves each entry to a row of its own.
/// - `rederive_failures`: per record, pipeline and processor that failed, as on SQLite; rows exist only
///   for failures.
/// - `rederive_runs`: every run. Workers that derive the same processors at once share one run: a
///   worker starting while others derive joins theirs, and the last to finish ends it. `pending` holds,
///   per pipeline, the records stale when the run started, counted once by the worker that started
///   it: a worker joining the run takes what is left of that count rather than counting again.
/// - `rederive_run_shares`: per run and worker lease, the counts its commits added (derived, unchanged,
///   failed, skipped), so that a run killed mid-way still says what it committed, and (version 8) the
///   time of its last commit and its recent rate (records per second between its commits, smoothed),
///   for `status`. A run's counts are
///   the sum of its shares: each worker writes a row of its own, where one row per run would have every
///   commit of every worker wait for the others' to end.
/// - `rederive_leases`: one row per worker process deriving now: host, pid, token, heartbeat, expiry,
///   the run it derives, and `process_start`, the process's `ProcessStart` (NULL where unknown), by
///   which a worker on the same host tells a process that ended from a later one given the same pid.
/// - `rederive_replaced`: for rollback, **one row per record whose values a run changed**: the
///   generation it derived from and, per processor whose values changed, the values and the stamp
///   entry they replaced (`{"name": {"values": [...], "stamp": {...}}}`, `values` null when the record
///   had no row of derived values, `stamp` null or absent when the processor had none). Only the newest
///   ``PostgresStore/replacedValuesRunLimit`` runs that changed values keep theirs.
/// - `rederive_schema_migrations`: the app's own schema migrations once applied.
/// - `rederive_pauses` (version 7): the pauses in force, by pipeline and processor (the empty string
///   for the whole pipeline); `rederive_runs.cancel_requested_at`, set by `rederive cancel`; and
///   `rederive_leases.hold` and `hold_since`, what holds each worker as it reported it. Workers read
///   the first two once per heartbeat.
/// - `rederive_counts` and `rederive_count_deltas`: what `status` counts (records, current stamp
///   entries and current failures per processor and version), kept by statement triggers on the
///   counted tables in every writer's transaction; deltas are appended, never updated, and folded into
///   the totals now and then (see ``PostgresStatusCounts``).
/// - `rederive_projections` (version 7): per pipeline and record, the stored projection of its decoded
///   payload, for pipelines that declare one (``PostgresProjectionSchema``). Version 9 plans the
///   statements of its count triggers for each statement's rows (``PostgresProjectionCounts``).
///
/// A record's first derivation writes the companion row, a stamp row per processor, the replaced row,
/// and the `rederive_records` row twice (claimed, then released by the commit), plus, per commit of a
/// batch, the worker's share of the run's counts. A derivation that changes nothing writes the stamp
/// rows of the processors it derived and the `rederive_records` row twice. A statement that changes what `status` counts adds one
/// delta row per processor and version whose count it changed. Failures add one row per failing processor, and clear `current` of
/// its stamp row where it held one.
enum PostgresSchema {
    /// Bumped when the tables below change; stored in `rederive_bookkeeping`.
    static let version = 11

    static let statements: [String] = [
        "CREATE SEQUENCE IF NOT EXISTS rederive_generations",
        """
        CREATE TABLE IF NOT EXISTS rederive_records (
            source text NOT NULL,
            record_id bigint NOT NULL,
            generation bigint NOT NULL,
            claimed_by text,
            PRIMARY KEY (source, record_id)
        )
        """,
        "CREATE INDEX IF NOT EXISTS rederive_records_claimed ON rederive_records (claimed_by) WHERE claimed_by IS NOT NULL",
        "ALTER TABLE rederive_records ADD COLUMN IF NOT EXISTS committed_run bigint",
    ] + PostgresStampRows.statements + [
        """
        CREATE TABLE IF NOT EXISTS rederive_failures (
            pipeline text NOT NULL,
            processor text NOT NULL,
            record_id bigint NOT NULL,
            source text NOT NULL,
            version integer NOT NULL,
            generation bigint NOT NULL,
            current boolean NOT NULL,
            kind text NOT NULL,
            message text NOT NULL,
            run_id bigint,
            failed_at timestamptz NOT NULL,
            PRIMARY KEY (pipeline, processor, record_id)
        )
        """,
        "CREATE INDEX IF NOT EXISTS rederive_failures_current ON rederive_failures (pipeline, processor, version) WHERE current",
        "CREATE INDEX IF NOT EXISTS rederive_failures_by_record ON rederive_failures (source, record_id)",
        """
        CREATE TABLE IF NOT EXISTS rederive_runs (
            id bigserial PRIMARY KEY,
            started_at timestamptz NOT NULL,
            ended_at timestamptz,
            status text NOT NULL,
            processors jsonb NOT NULL,
            derived bigint NOT NULL DEFAULT 0,
            unchanged bigint NOT NULL DEFAULT 0,
            failed bigint NOT NULL DEFAULT 0,
            skipped bigint NOT NULL DEFAULT 0
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS rederive_leases (
            token text PRIMARY KEY,
            holder text NOT NULL,
            host text NOT NULL,
            process_id integer NOT NULL,
            acquired_at timestamptz NOT NULL,
            renewed_at timestamptz NOT NULL,
            expires_at timestamptz NOT NULL
        )
        """,
        // Per pipeline, the records pending when the run started, for the workers that join it.
        "ALTER TABLE rederive_runs ADD COLUMN IF NOT EXISTS pending jsonb",
        // The run a worker derives: workers started alike join one run (PostgresStore.startRun).
        "ALTER TABLE rederive_leases ADD COLUMN IF NOT EXISTS run_id bigint",
        // What a worker committed is counted in its shares of runs (below), not in its lease.
        "ALTER TABLE rederive_leases DROP COLUMN IF EXISTS done",
        // When the worker's process started: a lease of a process of this host that ended is reaped at once.
        "ALTER TABLE rederive_leases ADD COLUMN IF NOT EXISTS process_start text",
        """
        CREATE TABLE IF NOT EXISTS rederive_run_shares (
            run_id bigint NOT NULL,
            token text NOT NULL,
            derived bigint NOT NULL DEFAULT 0,
            unchanged bigint NOT NULL DEFAULT 0,
            failed bigint NOT NULL DEFAULT 0,
            skipped bigint NOT NULL DEFAULT 0,
            PRIMARY KEY (run_id, token)
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS rederive_replaced (
            run_id bigint NOT NULL,
            pipeline text NOT NULL,
            record_id bigint NOT NULL,
            source text NOT NULL,
            generation bigint NOT NULL,
            processors jsonb NOT NULL,
            PRIMARY KEY (run_id, pipeline, record_id)
        )
        """,
        // When a worker last committed to its share of a run, and its rate lately, for `status` (version 8).
        "ALTER TABLE rederive_run_shares ADD COLUMN IF NOT EXISTS committed_at timestamptz",
        "ALTER TABLE rederive_run_shares ADD COLUMN IF NOT EXISTS recent_rate double precision",
        """
        CREATE TABLE IF NOT EXISTS rederive_schema_migrations (
            id text PRIMARY KEY,
            applied_at timestamptz NOT NULL,
            duration_ms double precision NOT NULL,
            rederive_version text NOT NULL
        )
        """,
        // What holds or ends the work (version 7): pauses in force, cancels asked of runs in
        // progress, and what each worker reported holds it.
        """
        CREATE TABLE IF NOT EXISTS rederive_pauses (
            pipeline text NOT NULL,
            processor text NOT NULL,
            requested_at timestamptz NOT NULL,
            requested_by text NOT NULL,
            PRIMARY KEY (pipeline, processor)
        )
        """,
        "ALTER TABLE rederive_runs ADD COLUMN IF NOT EXISTS cancel_requested_at timestamptz",
        "ALTER TABLE rederive_leases ADD COLUMN IF NOT EXISTS hold text",
        "ALTER TABLE rederive_leases ADD COLUMN IF NOT EXISTS hold_since timestamptz",
        "CREATE TABLE IF NOT EXISTS rederive_bookkeeping (version integer NOT NULL)",
    ] + PostgresStatusCounts.statements + PostgresProjectionSchema.statements + PostgresProjectionCounts.statements

    /// Creates the tables unless they are there at this version. Looks first without writing, so a
    /// role that may only read status opens the database too.
    static func createBookkeeping(_ store: PostgresStore) async throws {
        let logger = store.logger
        let current = try await store.withConnection("open") { connection in
            try await Self.installedVersion(connection, logger)
        }
        guard current != version else { return }
        if let current, current > version {
            throw RederiveError(.schemaMismatch, "\(store.location) was prepared by a newer rederive (bookkeeping version \(current))")
        }
        try await store.transaction("create rederive's tables in") { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext('rederive'))", logger: logger)
            for statement in statements {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            // The count triggers were just created, holding the counted tables against writers: what is
            // counted now is exact, and every later write is counted by the triggers.
            try await PostgresStatusCounts.recount(connection, logger)
            try await connection.query("DELETE FROM rederive_bookkeeping", logger: logger)
            try await connection.query("INSERT INTO rederive_bookkeeping (version) VALUES (\(version))", logger: logger)
        }
    }

    /// Throws, in one line, unless rederive's bookkeeping is installed at this version: for commands
    /// that only read, or that change what rederive keeps, and so create nothing.
    static func requireBookkeeping(_ store: PostgresStore) async throws {
        let current = try await store.withConnection("open") { connection in
            try await Self.installedVersion(connection, store.logger)
        }
        guard let current else {
            throw RederiveError(
                .schemaMismatch,
                "\(store.location) is not a rederive database: it has no rederive tables (prepare it with rederive import, or rederive run)"
            )
        }
        if current < version {
            throw RederiveError(
                .schemaMismatch,
                "\(store.location) was prepared by an older rederive; upgrade it first with rederive run or rederive migrate"
            )
        }
        if current > version {
            throw RederiveError(.schemaMismatch, "\(store.location) was prepared by a newer rederive (bookkeeping version \(current))")
        }
    }

    private static func installedVersion(_ connection: PostgresConnection, _ logger: Logger) async throws -> Int? {
        let exists = try await connection.query("SELECT to_regclass('rederive_bookkeeping') IS NOT NULL", logger: logger)
            .collect { try $0.decode(Bool.self) }.first ?? false
        guard exists else { return nil }
        return try await connection.query("SELECT max(version) FROM rederive_bookkeeping", logger: logger)
            .collect { try $0.decode(Int?.self) }.first ?? nil
    }
}
#endif
