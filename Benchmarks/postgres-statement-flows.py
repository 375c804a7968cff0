#!/usr/bin/env python3
"""What a bump's statements cost the PostgreSQL server, flow by flow (issue 40).

Run by postgres-statement-flows.sh, which makes the cluster and the corpus. Worker threads (two by
default, `--workers`), each on its own connections, bump `wall_metrics` of RoomScan's 5,000 generated records with no value
changes, issuing the statements of one flow; the server's CPU per record (utime + stime of every
postgres process) is printed per flow and round. The statements model the store's (d54ee78) for
RoomScan's six processors: the same stale condition, locks, fence and writes, written here by hand,
prepared and planned for each call's values as the store's are; the derivation itself is left out, as
no value changes.

Flows:
- claims: today's. A claim transaction (lease read, pick and mark, projections read), and a commit
  transaction per 5 claims (lease lock, hold, fence rewrite, stored values read, stamps, share).
- single: one transaction per claim that picks with row locks only (no mark), holding the app's
  rows, reads projections and stored values, and writes stamps and the share: no fence to check
  and no row to rewrite, since the records stay locked until their results are stored.
- single-nostamps, single-nolocks, read: single without the stamps' write; without the locks and
  the stamps; the pick's read alone.
- raw: the rows the stale condition reads (records, stamps, failures of each id range), sent as
  they are: the floor of any flow that reads every record's stamps.

Needs psycopg 3 (`pip install "psycopg[binary]"`).
"""
import argparse
import os
import threading
import time
import uuid

import psycopg

PROCESSORS = ["floor_area", "element_counts", "wall_metrics", "object_categories", "section_labels", "room_type"]
# The processors whose failure kinds room_type, the dependent, must know of; and the dependent.
FAILURE_KINDS = ["floor_area", "object_categories", "section_labels", "room_type"]
DEPENDENT = "room_type"


def stale_select(locks: str, extra_join: str = "", extra_columns: str = "") -> str:
    """The pick's select: each record's stamps and current failures folded into one row each."""
    up = ", ".join(f"bool_or(x.processor = '{p}' AND x.version = 1 AND x.current) AS up{i}" for i, p in enumerate(PROCESSORS))
    failed = ", ".join(f"bool_or(y.processor = '{p}' AND y.version = 1) AS failed{i}" for i, p in enumerate(PROCESSORS))
    kinds = ", ".join(f"max(y.kind) FILTER (WHERE y.processor = '{p}' AND y.version = 1) AS kind{i}" for i, p in enumerate(FAILURE_KINDS))
    flags = [f"(NOT coalesce(s.up{i}, false) AND NOT coalesce(fl.failed{i}, false))" for i in range(len(PROCESSORS))]
    return f"""
        SELECT r.record_id, r.generation, {", ".join(f"{f} AS c{i}" for i, f in enumerate(flags))},
            {", ".join(f"fl.kind{i}" for i in range(len(FAILURE_KINDS)))}, s.digest,
            r.xmin = (SELECT o.xmin FROM rederive_records o WHERE o.source = r.source AND o.record_id = r.record_id) AS as_read
            {extra_columns}
        FROM rederive_records r {extra_join}
        CROSS JOIN LATERAL (SELECT {up}, max(x.inputs_digest) FILTER (WHERE x.processor = '{DEPENDENT}' AND x.version = 1
            AND x.current) AS digest FROM rederive_stamps x WHERE x.pipeline = 'roomscan' AND x.record_id = r.record_id) s
        CROSS JOIN LATERAL (SELECT {failed}, {kinds} FROM rederive_failures y
            WHERE y.source = r.source AND y.record_id = r.record_id AND y.pipeline = 'roomscan' AND y.current) fl
        WHERE r.source = 'room_scans' AND r.claimed_by IS NULL AND r.record_id > %(cursor)s
        AND coalesce(r.committed_run <> (SELECT l.run_id FROM rederive_leases l WHERE l.token = %(token)s), true)
        AND ({" OR ".join(flags)})
        ORDER BY r.record_id LIMIT %(limit)s {locks}"""


CLAIM_PICK = f"""
    WITH picked AS ({stale_select("FOR UPDATE OF r SKIP LOCKED")}
    ), marked AS (
        UPDATE rederive_records r SET claimed_by = %(token)s
        WHERE r.source = 'room_scans' AND r.record_id = ANY(ARRAY(SELECT record_id FROM picked))
    )
    SELECT * FROM picked"""
# One transaction per batch: the app's rows are held as the commit's hold does, skipped when locked.
SINGLE_JOIN = "JOIN room_scans t ON t.id = r.record_id LEFT JOIN room_scans_derived d ON d.id = r.record_id"
SINGLE_VALUES = ", d.id IS NOT NULL, d.wall_length_m, d.ceiling_height_m"
SINGLE_PICK = stale_select("FOR UPDATE OF r SKIP LOCKED FOR KEY SHARE OF t SKIP LOCKED", SINGLE_JOIN, SINGLE_VALUES)
UNLOCKED_PICK = stale_select("", SINGLE_JOIN, SINGLE_VALUES)
READ_PICK = stale_select("")

PROJECTIONS = """
    SELECT u.id, p.generation = u.generation, p.version = 1, p.checksum, p.payload_digest,
        CASE WHEN p.generation = u.generation AND p.version = 1 THEN p.bytes END
    FROM unnest(%(ids)s::bigint[], %(generations)s::bigint[]) AS u(id, generation)
    JOIN rederive_projections p ON p.pipeline = 'roomscan' AND p.record_id = u.id"""
IS_HELD = "SELECT count(*) FROM rederive_leases WHERE token = %(token)s"
HOLDS_FOR_COMMIT = "SELECT count(*) FROM (SELECT 1 FROM rederive_leases WHERE token = %(token)s FOR KEY SHARE) l"
HOLD = 'SELECT "rederive_room_scans_hold"(%(ids)s::bigint[], %(generations)s::bigint[])'
ACCEPT = """
    UPDATE rederive_records r SET claimed_by = NULL, committed_run = %(run)s
    FROM unnest(%(ids)s::bigint[], %(generations)s::bigint[]) AS c(id, generation)
    WHERE r.source = 'room_scans' AND r.record_id = c.id AND r.claimed_by = %(token)s AND r.generation = c.generation
    RETURNING r.record_id"""
COMMIT_STATE = """
    SELECT r.record_id, r.generation, d.id IS NOT NULL, d.wall_length_m, d.ceiling_height_m
    FROM rederive_records r LEFT JOIN room_scans_derived d ON d.id = r.record_id
    WHERE r.source = 'room_scans' AND r.record_id = ANY(%(ids)s::bigint[])"""
STAMPS = """
    INSERT INTO rederive_stamps AS s (pipeline, processor, record_id, source, version, generation, payload_digest,
        current, run_id, inputs_digest, input_versions)
    SELECT 'roomscan', 'wall_metrics', u.id, 'room_scans', 1, u.generation, 0, true, %(run)s, NULL, NULL
    FROM unnest(%(ids)s::bigint[], %(generations)s::bigint[]) AS u(id, generation)
    ON CONFLICT (pipeline, record_id, processor) DO UPDATE SET version = excluded.version,
        generation = excluded.generation, payload_digest = excluded.payload_digest, current = excluded.current,
        run_id = excluded.run_id, inputs_digest = excluded.inputs_digest, input_versions = excluded.input_versions"""
SHARE = """
    INSERT INTO rederive_run_shares AS s (run_id, token, derived, unchanged, failed, skipped, committed_at)
    VALUES (%(run)s, %(token)s, 0, %(count)s, 0, 0, clock_timestamp())
    ON CONFLICT (run_id, token) DO UPDATE SET unchanged = s.unchanged + excluded.unchanged,
        committed_at = excluded.committed_at"""
RAW_RECORDS = """
    SELECT r.record_id, r.generation, r.claimed_by IS NULL, r.committed_run FROM rederive_records r
    WHERE r.source = 'room_scans' AND r.record_id > %(cursor)s ORDER BY r.record_id LIMIT %(limit)s"""
RAW_STAMPS = """
    SELECT x.record_id, x.processor, x.version, x.current, x.inputs_digest FROM rederive_stamps x
    WHERE x.pipeline = 'roomscan' AND x.record_id > %(cursor)s AND x.record_id <= %(through)s"""
RAW_FAILURES = """
    SELECT y.record_id, y.processor, y.version, y.kind FROM rederive_failures y
    WHERE y.source = 'room_scans' AND y.record_id > %(cursor)s AND y.record_id <= %(through)s AND y.current"""

CLAIM = 128
CLAIMS_PER_COMMIT = 5


def batch(rows):
    return {"ids": [row[0] for row in rows], "generations": [row[1] for row in rows]}


def claims(dsn, token, run):
    with psycopg.connect(dsn, autocommit=True) as claiming, psycopg.connect(dsn, autocommit=True) as committing:
        def commit(rows):
            with committing.transaction():
                committing.execute(HOLDS_FOR_COMMIT, {"token": token}, prepare=True)
                committing.execute(HOLD, batch(rows), prepare=True)
                accepted = committing.execute(ACCEPT, {**batch(rows), "run": run, "token": token}, prepare=True).fetchall()
                committing.execute(COMMIT_STATE, {"ids": [row[0] for row in accepted]}, prepare=True).fetchall()
                committing.execute(STAMPS, {**batch(rows), "run": run}, prepare=True)
                committing.execute(SHARE, {"run": run, "token": token, "count": len(rows)}, prepare=True)

        cursor, pending, count = -2**63, [], 0
        while True:
            with claiming.transaction():
                claiming.execute(IS_HELD, {"token": token}, prepare=True)
                rows = claiming.execute(CLAIM_PICK, {"cursor": cursor, "token": token, "limit": CLAIM}, prepare=True).fetchall()
                if rows:
                    claiming.execute(PROJECTIONS, batch(rows), prepare=True).fetchall()
            if not rows:
                break
            cursor, count = max(row[0] for row in rows), count + 1
            pending += rows
            if count % CLAIMS_PER_COMMIT == 0:
                commit(pending)
                pending = []
        if pending:
            commit(pending)


def single(pick, projections=True, stamps=True):
    def flow(dsn, token, run):
        with psycopg.connect(dsn, autocommit=True) as connection:
            cursor = -2**63
            while True:
                with connection.transaction():
                    rows = connection.execute(pick, {"cursor": cursor, "token": token, "limit": CLAIM}, prepare=True).fetchall()
                    if rows and projections:
                        connection.execute(PROJECTIONS, batch(rows), prepare=True).fetchall()
                    if rows and stamps:
                        connection.execute(STAMPS, {**batch(rows), "run": run}, prepare=True)
                        connection.execute(SHARE, {"run": run, "token": token, "count": len(rows)}, prepare=True)
                if not rows:
                    break
                cursor = max(row[0] for row in rows)
    return flow


def raw(dsn, token, run):
    with psycopg.connect(dsn, autocommit=True) as connection:
        cursor = -2**63
        while True:
            with connection.transaction():
                rows = connection.execute(RAW_RECORDS, {"cursor": cursor, "limit": CLAIM}, prepare=True).fetchall()
                if rows:
                    window = {"cursor": cursor, "through": rows[-1][0]}
                    connection.execute(RAW_STAMPS, window, prepare=True).fetchall()
                    connection.execute(RAW_FAILURES, window, prepare=True).fetchall()
            if not rows:
                break
            cursor = rows[-1][0]


FLOWS = {
    "claims": claims,
    "single": single(SINGLE_PICK),
    "single-nostamps": single(SINGLE_PICK, stamps=False),
    "single-nolocks": single(UNLOCKED_PICK, stamps=False),
    "read": single(READ_PICK, projections=False, stamps=False),
    "raw": raw,
}


def server_cpu(postmaster):
    ticks = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = open(f"/proc/{pid}/stat").read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if pid == postmaster:
            ticks += sum(map(int, fields[11:15]))
        elif fields[1] == postmaster:
            ticks += sum(map(int, fields[11:13]))
    return ticks / os.sysconf("SC_CLK_TCK")


def bump(dsn, workers):
    """Makes every record stale for wall_metrics, as `invalidate --processor wall_metrics` does, and
    takes a lease of a new run per worker."""
    with psycopg.connect(dsn, autocommit=True) as admin:
        admin.execute("DELETE FROM rederive_leases")
        admin.execute("UPDATE rederive_stamps SET current = false WHERE pipeline = 'roomscan' AND processor = 'wall_metrics'")
        admin.execute("UPDATE rederive_records SET claimed_by = NULL, committed_run = NULL")
        admin.execute("VACUUM ANALYZE")
        run = admin.execute("SELECT coalesce(max(run_id), 0) + 1 FROM rederive_run_shares").fetchone()[0]
        tokens = [str(uuid.uuid4()).upper() for _ in range(workers)]
        for token in tokens:
            admin.execute("""
                INSERT INTO rederive_leases (token, holder, host, process_id, acquired_at, renewed_at, expires_at, run_id)
                VALUES (%s, 'flows', 'flows', 1, now(), now(), now() + interval '1 hour', %s)""", (token, run))
        return run, tokens


def measure(dsn, postmaster, flow, records, workers):
    run, tokens = bump(dsn, workers)
    time.sleep(0.3)
    before = server_cpu(postmaster)
    threads = [threading.Thread(target=FLOWS[flow], args=(dsn, token, run)) for token in tokens]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    time.sleep(0.3)
    spent = server_cpu(postmaster) - before
    with psycopg.connect(dsn) as check:
        left = check.execute("SELECT count(*) FROM rederive_stamps WHERE processor = 'wall_metrics' AND NOT current").fetchone()[0]
    if flow in ("claims", "single") and left:
        raise SystemExit(f"{flow} left {left} records stale")
    return spent * 1000 / records


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--postmaster", required=True, help="the server's process id")
    parser.add_argument("--records", type=int, required=True)
    parser.add_argument("--rounds", type=int, default=6, choices=range(1, 51), metavar="1-50")
    parser.add_argument("--workers", type=int, default=2, choices=range(1, 9), metavar="1-8", help="threads, each a worker")
    parser.add_argument("flows", nargs="*", metavar="flow", help=f"of {', '.join(FLOWS)} (all when none is named)")
    arguments = parser.parse_args()
    unknown = [flow for flow in arguments.flows if flow not in FLOWS]
    if unknown:
        parser.error(f"no flow {', '.join(unknown)}")
    arguments.flows = arguments.flows or list(FLOWS)
    # Planned for each call's values, as the store's sessions are.
    dsn = f"host=127.0.0.1 port={arguments.port} user=postgres dbname=bench options='-c plan_cache_mode=force_custom_plan'"
    results = {flow: [] for flow in arguments.flows}
    for round in range(arguments.rounds):
        for flow in arguments.flows:
            results[flow].append(measure(dsn, arguments.postmaster, flow, arguments.records, arguments.workers))
            print(f"{flow} round {round + 1}: {results[flow][-1]:.4f} ms/record", flush=True)
    median = {flow: sorted(values)[len(values) // 2] for flow, values in results.items()}
    print(f"\n{arguments.workers} workers\n\n| flow | server CPU ms/record, median of {arguments.rounds} | / claims |\n|---|---:|---:|")
    for flow in arguments.flows:
        ratio = f"{median['claims'] / median[flow]:.2f}" if "claims" in median else ""
        print(f"| {flow} | {median[flow]:.4f} | {ratio} |")


if __name__ == "__main__":
    main()
