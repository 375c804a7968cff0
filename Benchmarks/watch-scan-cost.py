#!/usr/bin/env python3
"""What a watcher's looks for stale records cost SQLite on a large table, measured on the queries alone.

    REDERIVE_BIN=.build/release/rederive python3 Benchmarks/watch-scan-cost.py [--records 20000 100000]

It lets `rederive` create its bookkeeping tables (generate and derive 200 records), copies their schema
into a new database, fills it with RECORDS records of the RoomScan pipeline, each with a current stamp
of every processor (as after a run), and times with Python's sqlite3 (the same SQLite library):

- the index counts the watcher takes per pipeline (records; up-to-date and failed per processor);
- the fresh lane's claim from the first record when nothing is fresh: a probe per record and processor
  (what a pass of the fresh lane cost before issue 26's rework, and what a sweep costs now);
- the same claim from where the lane's claims reached, the last 50 ids (what a look costs now).
"""
import argparse
import os
import random
import sqlite3
import subprocess
import tempfile
import time


def timed(run, repeats):
    run()
    started = time.perf_counter()
    for _ in range(repeats):
        run()
    return (time.perf_counter() - started) / repeats * 1000


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, nargs="+", default=[20000, 100000])
    args = parser.parse_args()
    if any(not 1 <= count <= 5_000_000 for count in args.records):
        raise SystemExit("--records: 1 to 5,000,000 each")
    rederive = os.environ.get("REDERIVE_BIN", ".build/release/rederive")
    work = tempfile.mkdtemp(prefix="rederive-scan-cost-")
    small = os.path.join(work, "small.sqlite")
    subprocess.run([rederive, "generate", "--db", small, "--count", "200", "--seed", "1", "--corrupt", "0"], check=True, capture_output=True)
    subprocess.run([rederive, "run", "--db", small, "--progress", "none"], check=True, capture_output=True)
    source = sqlite3.connect(small)
    schema = [row[0] for row in source.execute(
        "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND (name LIKE 'rederive_records%' OR name LIKE 'rederive_stamps%' OR name LIKE 'rederive_failures%')")]
    processors = [row[0] for row in source.execute("SELECT DISTINCT processor FROM rederive_stamps ORDER BY processor")]
    pipeline, table = source.execute("SELECT pipeline, source FROM rederive_stamps LIMIT 1").fetchone()
    for count in args.records:
        path = os.path.join(work, f"cost-{count}.sqlite")
        db = sqlite3.connect(path)
        db.execute("PRAGMA cache_size = -200000")
        for statement in schema:
            db.execute(statement)
        db.execute("BEGIN")
        db.executemany("INSERT INTO rederive_records VALUES (?, ?, ?)", ((table, i, random.getrandbits(62)) for i in range(1, count + 1)))
        for processor in processors:
            db.executemany(
                "INSERT INTO rederive_stamps (pipeline, processor, record_id, source, version, generation, payload_digest, current, run_id, derived_at)"
                " VALUES (?, ?, ?, ?, 1, 0, 0, 1, 1, 'x')", ((pipeline, processor, i, table) for i in range(1, count + 1)))
        db.execute("COMMIT")

        def counts():
            db.execute("SELECT count(*) FROM rederive_records WHERE source = ?", (table,)).fetchall()
            for processor in processors:
                for kind in ("stamps", "failures"):
                    db.execute(f"SELECT count(*) FROM rederive_{kind} WHERE pipeline = ? AND processor = ? AND version = 1 AND current = 1",
                               (pipeline, processor)).fetchall()

        # The fresh lane's pending query, as the SQLite store writes it for every processor of the pipeline.
        flags = [
            f"(NOT EXISTS (SELECT 1 FROM rederive_stamps x WHERE x.pipeline = '{pipeline}' AND x.processor = '{p}' AND x.record_id = r.record_id AND x.current = 1)"
            f" AND NOT EXISTS (SELECT 1 FROM rederive_failures x WHERE x.pipeline = '{pipeline}' AND x.processor = '{p}' AND x.record_id = r.record_id"
            f" AND x.version = 1 AND x.current = 1)) AS stale{i}" for i, p in enumerate(processors)
        ]
        fresh = (f"SELECT * FROM (SELECT r.record_id, r.generation, {', '.join(flags)} FROM rederive_records r WHERE r.source = ? AND r.record_id > ?)"
                 f" WHERE {' OR '.join(f'stale{i}' for i in range(len(processors)))} ORDER BY record_id LIMIT 32")
        print(f"{count} records, {len(processors)} processors:")
        print(f"  index counts of one pipeline: {timed(counts, 20):.1f} ms")
        print(f"  fresh claim from the first record, nothing fresh: {timed(lambda: db.execute(fresh, (table, -2**63)).fetchall(), 3):.0f} ms")
        print(f"  fresh claim from the last 50 ids: {timed(lambda: db.execute(fresh, (table, count - 50)).fetchall(), 20):.1f} ms")
        db.close()
        os.remove(path)


if __name__ == "__main__":
    main()
