#!/usr/bin/env python3
"""Insert-to-derived latency of `rederive watch` while a backlog drains, and the backlog's drain rate
against a plain `rederive run` on the same data.

    python3 Benchmarks/watch-latency.py [--store sqlite|postgres] [--backlog 20000] [--rate 100]
                                        [--seconds 60] [--parallel 2] [--poll-ms 10] [--backlog-from FILE]

What it does, on one store:

1. Writes a corpus of BACKLOG records (`rederive generate --corrupt 0`), derives it with `rederive run`,
   then makes every record stale as a logic bump does: each current stamp's version moved one below
   the processor's (`--backlog-kind invalidate` uses `rederive invalidate` instead, whose records the
   watcher treats as fresh, not as a backlog; `--backlog-kind never` derives nothing: a first deployment
   on an imported table).
2. Baseline: `rederive run --parallel N` on a copy of that database, timed (wall seconds). Its drain
   rate is BACKLOG / wall. A second baseline, on another copy: the same plain run while the inserts of
   step 3 go on and this process polls as it does there (stopped once the backlog is derived again), so
   that what the traffic and the measuring cost the machine is told apart from what the watcher costs
   (`--no-plain-beside-inserts` skips it).
3. Watch: `rederive watch --parallel N` on another copy. As it starts, this process starts inserting
   RATE new records per second for SECONDS seconds, one INSERT per transaction at even intervals, from
   its own connection (Python's sqlite3 on SQLite; a psql session on PostgreSQL), each with a new key and
   the payload of a backlog record, as an application writing the table would (rederive's triggers
   register it). A second connection of this process polls every POLL_MS milliseconds for new records
   whose stamps are committed (`rederive_stamps` of the pipeline's last processor, which a record's
   commit writes with all its others), and for how many backlog records were derived again since the
   watch started (counted every 250 ms, and at once when the last backlog record is seen derived).
4. A record's latency runs from the moment its INSERT committed (the call returned) to the first poll
   that saw it derived: it overstates the true latency by up to one poll interval plus the poll's own
   time. The backlog's drain time runs from the watcher's start to the poll that saw every backlog record
   derived again (its rate includes the watcher's start-up).
5. Stops the watcher with SIGTERM once both are done (or after a deadline), and checks it exits 0.

It prints the latency distribution (p50, p90, p99, max, and a histogram), both drain rates and their
ratio, and writes them as JSON to BENCH_DIR/watch-latency-STORE.json. On PostgreSQL the cluster loads
pg_stat_statements, and what the server executed for the watched database during the measurement
(calls, rows and milliseconds per statement) is written to BENCH_DIR/watch-latency-postgres/
statements-postgres.tsv. `--watch-arg` passes more arguments to `rederive watch` (`--log-level debug`
logs each commit with its duration in watch-STORE.log there).

The stores keep stamps differently: SQLite a row per record and processor, PostgreSQL a row per record
whose JSON object holds each processor's entry; the bump and the polls are written for each.

Environment: REDERIVE_BIN (a rederive with the `watch` command; with `--store postgres`, built with the
PostgreSQL trait; otherwise this builds one in release mode), BENCH_DIR (.build-bench), POSTGRES_BIN
(/usr/lib/postgresql/15/bin).
"""
import argparse
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PIPELINE = "roomscan"
# The pipeline's last processor: it derives from three others, so its stamp is written with the record's
# every other stamp, in the same commit.
LAST_PROCESSOR = "room_type"


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def rederive_binary(store):
    if os.environ.get("REDERIVE_BIN"):
        return os.environ["REDERIVE_BIN"]
    traits = ["--traits", "PostgreSQL"] if store == "postgres" else []
    subprocess.run(["swift", "build", "-c", "release", *traits, "--product", "rederive"], cwd=ROOT, check=True)
    path = subprocess.run(
        ["swift", "build", "-c", "release", *traits, "--show-bin-path"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()
    return os.path.join(path, "rederive")


def run(command, **kwargs):
    return subprocess.run(command, check=True, capture_output=True, text=True, **kwargs)


# What a new build with every processor's logic version bumped finds: each record's stamps current, at
# another version than the code's. The watcher drains such records in its backlog lane; records that
# `invalidate` marks, like new ones, have no current stamp and go in its fresh lane.
BUMP = "UPDATE rederive_stamps SET version = version - 1 WHERE current"

# The new records among those from an id on whose last processor's stamp is committed, and how many
# backlog records (up to an id) were derived again by runs after a given one: a row per record and
# processor on both stores.
DERIVED_SINCE = "SELECT record_id FROM rederive_stamps WHERE pipeline = %s AND processor = %s AND record_id >= %s AND current"
DRAINED = ("SELECT count(*) FROM rederive_stamps WHERE pipeline = %s AND processor = %s AND record_id <= %s AND run_id > %s"
           " AND current")
# From rederive_records, so that a record never derived, which has no stamp, counts as undrained.
FIRST_UNDRAINED = ("SELECT min(r.record_id) FROM rederive_records r WHERE r.source = 'room_scans' AND r.record_id >= %s"
                   " AND r.record_id <= %s AND NOT EXISTS (SELECT 1 FROM rederive_stamps s WHERE s.pipeline = %s"
                   " AND s.processor = %s AND s.record_id = r.record_id AND s.run_id > %s AND s.current)")

# --- Stores -------------------------------------------------------------------------------------------


class SQLiteTarget:
    """A database file, copied for each measurement; connections through Python's sqlite3."""

    name = "sqlite"

    def __init__(self, work):
        self.work = work
        self.template = os.path.join(work, "backlog.sqlite")

    def db_argument(self, copy):
        return os.path.join(self.work, f"{copy}.sqlite")

    def prepare_template(self):
        return self.template

    def copy(self, name):
        destination = self.db_argument(name)
        source = sqlite3.connect(self.template)
        target = sqlite3.connect(destination)
        source.backup(target)
        source.close()
        target.close()
        return destination

    def connect(self, db):
        return SQLiteSession(db)

    def drop(self, name):
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(self.db_argument(name) + suffix):
                os.remove(self.db_argument(name) + suffix)

    def mark_bumped(self, db):
        session = SQLiteSession(db)
        session.rows(BUMP)
        session.close()

    def derived_since(self, session, first):
        return session.rows(DERIVED_SINCE, (PIPELINE, LAST_PROCESSOR, first))

    def drained(self, session, last_backlog, first_run):
        return session.rows(DRAINED, (PIPELINE, LAST_PROCESSOR, last_backlog, first_run))[0][0]

    def first_undrained(self, session, low, last_backlog, first_run):
        return session.rows(FIRST_UNDRAINED, (low, last_backlog, PIPELINE, LAST_PROCESSOR, first_run))[0][0]

    def reset_statements(self, db):
        pass

    def statements(self, db, path):
        pass

    def close(self):
        pass


class SQLiteSession:
    def __init__(self, path):
        # Each session is used by one thread, but not always the one that opened it.
        self.connection = sqlite3.connect(path, isolation_level=None, timeout=30, check_same_thread=False)
        self.connection.execute("PRAGMA busy_timeout = 30000")

    def rows(self, sql, arguments=()):
        return self.connection.execute(sql.replace("%s", "?"), arguments).fetchall()

    def insert_copy(self, key, source_id):
        cursor = self.connection.execute(
            "INSERT INTO room_scans (scan_id, payload) SELECT ?, payload FROM room_scans WHERE id = ?", (key, source_id)
        )
        return cursor.lastrowid

    def close(self):
        self.connection.close()


class PostgresTarget:
    """A throwaway PostgreSQL 15 cluster on loopback; one database per copy (CREATE DATABASE ... TEMPLATE)."""

    name = "postgres"

    def __init__(self, work):
        self.bin = os.environ.get("POSTGRES_BIN", "/usr/lib/postgresql/15/bin")
        if not os.access(os.path.join(self.bin, "initdb"), os.X_OK):
            raise SystemExit(f"no PostgreSQL server binaries at {self.bin} (set POSTGRES_BIN)")
        self.cluster = tempfile.mkdtemp(prefix="rederive-watchbench-")
        self.as_server = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
        if os.getuid() == 0:
            shutil.chown(self.cluster, "postgres", "postgres")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        data = os.path.join(self.cluster, "data")
        run([*self.as_server, f"{self.bin}/initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"])
        with open(os.path.join(data, "postgresql.conf"), "a") as conf:
            conf.write(f"listen_addresses = '127.0.0.1'\nport = {self.port}\nunix_socket_directories = '{self.cluster}'\n"
                       "shared_preload_libraries = 'pg_stat_statements'\npg_stat_statements.track = top\n"
                       "pg_stat_statements.max = 10000\n")
        run([*self.as_server, f"{self.bin}/pg_ctl", "-D", data, "-l", os.path.join(self.cluster, "server.log"), "-w", "-t", "60", "start"])
        self.psql(["-d", "postgres", "-c", "CREATE DATABASE backlog"])

    def psql(self, arguments):
        return run([f"{self.bin}/psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-X", "-v", "ON_ERROR_STOP=1", "-At", "-q", *arguments])

    def db_argument(self, name):
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}?sslmode=disable"

    def prepare_template(self):
        return self.db_argument("backlog")

    def copy(self, name):
        self.while_sessions_end(f"CREATE DATABASE {name} TEMPLATE backlog")
        return self.db_argument(name)

    def while_sessions_end(self, sql):
        """Runs `sql`, which needs a database no session uses: the last sessions of a database may take
        a moment to end after their clients did."""
        for attempt in range(50):
            try:
                self.psql(["-d", "postgres", "-c", sql])
                return
            except subprocess.CalledProcessError as error:
                if "being accessed by other users" not in error.stderr or attempt == 49:
                    raise
                time.sleep(0.2)

    @staticmethod
    def database(db):
        return db.split("/")[-1].split("?")[0]

    def connect(self, db):
        return PsqlSession(self, self.database(db))

    def drop(self, name):
        self.while_sessions_end(f"DROP DATABASE IF EXISTS {name}")

    def mark_bumped(self, db):
        session = self.connect(db)
        session.rows(BUMP)
        session.rows("VACUUM ANALYZE")
        session.close()

    def derived_since(self, session, first):
        return session.rows(DERIVED_SINCE, (PIPELINE, LAST_PROCESSOR, first))

    def drained(self, session, last_backlog, first_run):
        return session.rows(DRAINED, (PIPELINE, LAST_PROCESSOR, last_backlog, first_run))[0][0]

    def first_undrained(self, session, low, last_backlog, first_run):
        first = session.rows(FIRST_UNDRAINED, (low, last_backlog, PIPELINE, LAST_PROCESSOR, first_run))[0][0]
        return None if first == "" else first

    def reset_statements(self, db):
        self.psql(["-d", self.database(db), "-c", "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"])
        self.psql(["-d", self.database(db), "-c", "SELECT pg_stat_statements_reset()"])

    def statements(self, db, path):
        """What the server executed for the watched database, by statement: calls, rows, milliseconds."""
        rows = self.psql(["-d", self.database(db), "-F", "\t", "-c",
                          "SELECT calls, rows, round(total_exec_time::numeric, 1), regexp_replace(query, '\\s+', ' ', 'g')"
                          " FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
                          " ORDER BY total_exec_time DESC"]).stdout
        with open(path, "w") as out:
            out.write(rows)

    def close(self):
        subprocess.run([*self.as_server, f"{self.bin}/pg_ctl", "-D", os.path.join(self.cluster, "data"), "-m", "immediate", "-w", "stop"],
                       capture_output=True)
        shutil.rmtree(self.cluster, ignore_errors=True)


class PsqlSession:
    """One long-lived psql process in autocommit: each statement is committed when its answer is read."""

    END = "__rederive_end__"

    def __init__(self, target, database):
        self.process = subprocess.Popen(
            [f"{target.bin}/psql", "-h", "127.0.0.1", "-p", str(target.port), "-U", "postgres", "-X", "-At", "-q",
             "-v", "ON_ERROR_STOP=1", "-d", database],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
        )

    @staticmethod
    def literal(value):
        if isinstance(value, int):
            return str(value)
        return "'" + str(value).replace("'", "''") + "'"

    def rows(self, sql, arguments=()):
        for argument in arguments:
            sql = sql.replace("%s", self.literal(argument), 1)
        self.process.stdin.write(sql + ";\n\\echo " + self.END + "\n")
        self.process.stdin.flush()
        rows = []
        for line in self.process.stdout:
            line = line.rstrip("\n")
            if line == self.END:
                return rows
            rows.append(tuple(int(field) if field.lstrip("-").isdigit() else field for field in line.split("|")))
        raise RuntimeError("psql ended")

    def insert_copy(self, key, source_id):
        return self.rows("INSERT INTO room_scans (scan_id, payload) SELECT %s, payload FROM room_scans WHERE id = %s RETURNING id",
                         (key, source_id))[0][0]

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=10)


# --- Measurement --------------------------------------------------------------------------------------


def percentile(sorted_values, fraction):
    if not sorted_values:
        return None
    index = min(len(sorted_values) - 1, max(0, round(fraction * (len(sorted_values) - 1))))
    return sorted_values[index]


class Inserter(threading.Thread):
    """Inserts `rate` records a second for `seconds` seconds, at even intervals, one per transaction."""

    def __init__(self, session, rate, seconds, source_ids):
        super().__init__(daemon=True)
        self.session, self.rate, self.seconds, self.source_ids = session, rate, seconds, source_ids
        self.inserted = {}  # record id -> monotonic time its INSERT returned
        self.lock = threading.Lock()
        self.behind = 0.0  # the most this thread fell behind its schedule, seconds
        self.error = None
        self.stop = threading.Event()

    def run(self):
        try:
            start = time.monotonic()
            total = int(self.rate * self.seconds)
            for index in range(total):
                if self.stop.is_set():
                    break
                due = start + index / self.rate
                now = time.monotonic()
                if due > now:
                    time.sleep(due - now)
                else:
                    self.behind = max(self.behind, now - due)
                record = self.session.insert_copy(f"watch-bench-{index}", self.source_ids[index % len(self.source_ids)])
                committed = time.monotonic()
                with self.lock:
                    self.inserted[record] = committed
        except Exception as error:  # noqa: BLE001 - reported by the main thread
            self.error = error


class Drain:
    """Looks for the end of the backlog's drain: every backlog record derived again by a run after
    `first_run`. The backlog is claimed in id order: once its last record is derived again, every record
    is looked at (one record's lookup at each poll, so that the drain's end is seen within a poll, not
    within the four-times-a-second look at the records still to drain)."""

    def __init__(self, target, session, backlog_ids, first_run, started):
        self.target, self.session, self.first_run, self.started = target, session, first_run, started
        self.last_backlog = max(backlog_ids)
        self.records = len(backlog_ids)
        # Every backlog record below this one was seen derived again: each look goes on from there, so
        # that it reads the records still to drain rather than all of them, four times a second.
        self.undrained_from = min(backlog_ids)
        self.next_check = 0.0
        self.drained_at = None

    def poll(self, now):
        if self.drained_at is not None:
            return
        last = self.last_backlog
        if now < self.next_check and self.target.first_undrained(self.session, last, last, self.first_run) is None:
            self.next_check = now
        if now >= self.next_check:
            self.undrained_from = self.target.first_undrained(self.session, self.undrained_from, last, self.first_run)
            if self.undrained_from is None:
                self.drained_at = time.monotonic()
                log(f"backlog drained after {self.drained_at - self.started:.1f} s")
            self.next_check = now + 0.25

    def derived_count(self):
        if self.drained_at is not None:
            return self.records
        return self.target.drained(self.session, self.last_backlog, self.first_run)


def measure_plain_beside_inserts(target, rederive, db, backlog_ids, args):
    """A plain `rederive run` while the same inserts go on and this process polls as it does for the
    watcher: the drain rate a plain run keeps on this machine beside that traffic. Returns its drain
    seconds (from the run's start to the poll that saw the backlog derived again)."""
    session = target.connect(db)
    inserting = target.connect(db)
    first_run = session.rows("SELECT coalesce(max(id), 0) FROM rederive_runs")[0][0]
    log(f"plain run --parallel {args.parallel} beside {args.rate} inserts/s")
    started = time.monotonic()
    process = subprocess.Popen([rederive, "run", "--db", db, "--progress", "none", "--parallel", str(args.parallel)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    inserter = Inserter(inserting, args.rate, args.seconds, backlog_ids[:50])
    inserter.start()
    drain = Drain(target, session, backlog_ids, first_run, started)
    try:
        while drain.drained_at is None and time.monotonic() < started + args.drain_deadline:
            if inserter.error:
                raise inserter.error
            # The same two looks as beside the watcher: for inserted records, and for the drain.
            target.derived_since(session, max(backlog_ids) + 1)
            drain.poll(time.monotonic())
            if process.poll() is not None and drain.drained_at is None:
                drain.poll(drain.next_check)
                if drain.drained_at is None:
                    raise SystemExit(f"the plain run ended before the backlog was derived: {process.stderr.read()}")
            time.sleep(args.poll_ms / 1000)
    finally:
        inserter.stop.set()
        inserter.join(timeout=10)
        status = process.wait(timeout=600)
        session.close()
        inserting.close()
    if status != 0:
        raise SystemExit(f"the plain run beside inserts exited with status {status}")
    return None if drain.drained_at is None else drain.drained_at - started


def measure_watch(target, rederive, db, backlog_ids, args):
    watched = target.connect(db)
    inserting = target.connect(db)
    last_backlog = max(backlog_ids)
    first_run = watched.rows("SELECT coalesce(max(id), 0) FROM rederive_runs")[0][0]
    source_ids = backlog_ids[:50]

    log(f"watch --parallel {args.parallel} on {target.name}, {args.rate} inserts/s for {args.seconds} s")
    watch_log = open(os.path.join(args.work, f"watch-{target.name}.log"), "w")
    started = time.monotonic()
    logging = ["--log-level", args.watch_log_level, "--log-format", "json"] if args.watch_log_level else []
    watcher = subprocess.Popen([rederive, "watch", "--db", db, "--parallel", str(args.parallel), *logging, *args.watch_arg],
                               stdout=watch_log, stderr=subprocess.STDOUT)
    inserter = Inserter(inserting, args.rate, args.seconds, source_ids)
    inserter.start()

    derived = {}  # record id -> monotonic time a poll first saw it derived
    drain = Drain(target, watched, backlog_ids, first_run, started)
    deadline = started + args.seconds + args.drain_deadline
    try:
        inserts_ended = None
        while time.monotonic() < deadline:
            if inserter.error:
                raise inserter.error
            if watcher.poll() is not None:
                raise SystemExit(f"rederive watch exited early with status {watcher.returncode}; see {watch_log.name}")
            with inserter.lock:
                waiting = [record for record in inserter.inserted if record not in derived]
            if waiting:
                rows = target.derived_since(watched, min(waiting))
                seen = time.monotonic()
                for (record,) in rows:
                    if record > last_backlog and record not in derived:
                        derived[record] = seen
            now = time.monotonic()
            drain.poll(now)
            if not inserter.is_alive():
                inserts_ended = inserts_ended or time.monotonic()
                all_seen = len(derived) >= len(inserter.inserted)
                # The inserted records get two minutes after the last insert; the backlog its deadline.
                if (drain.drained_at is not None or now > deadline) and (all_seen or now - inserts_ended > 120):
                    break
            time.sleep(args.poll_ms / 1000)
        if inserter.error:
            raise inserter.error
        drained_count = drain.derived_count()
        drained_at = drain.drained_at
    finally:
        watcher.send_signal(signal.SIGTERM)
        try:
            status = watcher.wait(timeout=60)
        except subprocess.TimeoutExpired:
            watcher.kill()
            status = "killed after 60 s"
        watch_log.close()
        watched.close()
        inserter.join(timeout=5)
        inserting.close()
    target.statements(db, os.path.join(args.work, f"statements-{target.name}.tsv"))

    latencies = sorted(derived[record] - committed for record, committed in inserter.inserted.items() if record in derived)
    # Every record's insert time (seconds after the watcher started) and latency, for a closer look.
    with open(os.path.join(args.work, "latencies.json"), "w") as out:
        json.dump(sorted((committed - started, derived[record] - committed)
                         for record, committed in inserter.inserted.items() if record in derived), out)
    # The records inserted while the backlog drained, apart: the ones the lanes must put ahead of it.
    during = sorted(
        derived[record] - committed for record, committed in inserter.inserted.items()
        if record in derived and (drained_at is None or committed < drained_at)
    )
    return {
        "duringDrain": {
            "records": len(during), "p50": percentile(during, 0.50), "p90": percentile(during, 0.90),
            "p99": percentile(during, 0.99), "max": during[-1] if during else None,
        },
        "inserted": len(inserter.inserted),
        "derivedSeen": len(latencies),
        "neverSeenDerived": len(inserter.inserted) - len(latencies),
        "inserterFellBehindSeconds": round(inserter.behind, 3),
        "latencySeconds": {
            "p50": percentile(latencies, 0.50), "p90": percentile(latencies, 0.90), "p99": percentile(latencies, 0.99),
            "max": latencies[-1] if latencies else None, "mean": sum(latencies) / len(latencies) if latencies else None,
        },
        "histogram": histogram(latencies),
        "backlogDrainSeconds": None if drained_at is None else drained_at - started,
        "backlogDerivedAtDeadline": drained_count,
        "watchExitStatus": status,
    }


def histogram(latencies):
    bounds = [0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 5.0]
    counts, lower = {}, 0.0
    for bound in bounds:
        counts[f"{int(lower * 1000)}-{int(bound * 1000)} ms"] = sum(1 for value in latencies if lower < value <= bound or (lower == 0 and value <= bound))
        lower = bound
    counts[f"> {int(bounds[-1] * 1000)} ms"] = sum(1 for value in latencies if value > bounds[-1])
    return counts


def measure_round(target, rederive, args, number):
    """One round on fresh copies of the backlog: the plain run, the plain run beside the inserts, the
    watcher. Returns the watcher's figures with both baselines and their ratios."""
    baseline_db = target.copy(f"baseline{number}")
    target.reset_statements(baseline_db)
    # Logged as the watcher is, so that the two runs' commits can be compared.
    logging = ["--log-level", args.watch_log_level, "--log-format", "json"] if args.watch_log_level else []
    started = time.monotonic()
    with open(os.path.join(args.work, f"run-{target.name}.log"), "w") as run_log:
        subprocess.run([rederive, "run", "--db", baseline_db, "--progress", "none", "--parallel", str(args.parallel), *logging],
                       check=True, stdout=run_log, stderr=subprocess.STDOUT)
    baseline_seconds = time.monotonic() - started
    target.statements(baseline_db, os.path.join(args.work, f"statements-{target.name}-plain-run.tsv"))
    target.drop(f"baseline{number}")
    log(f"plain run: {args.backlog} records in {baseline_seconds:.1f} s")

    beside_seconds = None
    if not args.no_plain_beside_inserts:
        beside_db = target.copy(f"beside{number}")
        session = target.connect(beside_db)
        beside_ids = [row[0] for row in session.rows("SELECT id FROM room_scans ORDER BY id")]
        session.close()
        beside_seconds = measure_plain_beside_inserts(target, rederive, beside_db, beside_ids, args)
        target.drop(f"beside{number}")

    watch_db = target.copy(f"watched{number}")
    target.reset_statements(watch_db)
    session = target.connect(watch_db)
    backlog_ids = [row[0] for row in session.rows("SELECT id FROM room_scans ORDER BY id")]
    session.close()
    result = measure_watch(target, rederive, watch_db, backlog_ids, args)
    target.drop(f"watched{number}")

    result.update({
        "store": args.store, "backlog": args.backlog, "rate": args.rate, "seconds": args.seconds, "parallel": args.parallel,
        "pollMilliseconds": args.poll_ms, "backlogKind": args.backlog_kind, "plainRunSeconds": baseline_seconds,
        "plainRunRate": args.backlog / baseline_seconds,
        "plainRunBesideInsertsSeconds": beside_seconds,
        "plainRunBesideInsertsRate": args.backlog / beside_seconds if beside_seconds else None,
    })
    if result["backlogDrainSeconds"]:
        result["watchDrainRate"] = args.backlog / result["backlogDrainSeconds"]
        result["drainRateOfPlainRun"] = result["watchDrainRate"] / result["plainRunRate"]
        if beside_seconds:
            result["drainRateOfPlainRunBesideInserts"] = result["watchDrainRate"] / result["plainRunBesideInsertsRate"]
    print_round(result, args)
    return result


def print_round(result, args):
    latency = result["latencySeconds"]
    ms = lambda value: "n/a" if value is None else f"{value * 1000:.0f} ms"  # noqa: E731
    print(f"store {args.store}, --parallel {args.parallel}, backlog {args.backlog}, {args.rate:g} inserts/s for {args.seconds:g} s")
    print(f"latency: p50 {ms(latency['p50'])}, p90 {ms(latency['p90'])}, p99 {ms(latency['p99'])}, max {ms(latency['max'])}"
          f" ({result['derivedSeen']} of {result['inserted']} seen derived; poll every {args.poll_ms:g} ms)")
    during = result["duringDrain"]
    print(f"while the backlog drained: {during['records']} records, p50 {ms(during['p50'])}, p90 {ms(during['p90'])},"
          f" p99 {ms(during['p99'])}, max {ms(during['max'])}")
    print("histogram: " + ", ".join(f"{bucket}: {count}" for bucket, count in result["histogram"].items()))
    print(f"plain run: {result['plainRunRate']:.0f} records/s")
    if result["plainRunBesideInsertsRate"]:
        print(f"plain run beside the same inserts and polls: {result['plainRunBesideInsertsRate']:.0f} records/s")
    if result.get("watchDrainRate"):
        print(f"watch drain: {result['watchDrainRate']:.0f} records/s, {result['drainRateOfPlainRun'] * 100:.0f} % of the plain run")
        if result.get("drainRateOfPlainRunBesideInserts"):
            print(f"  {result['drainRateOfPlainRunBesideInserts'] * 100:.0f} % of the plain run beside the same inserts")
    else:
        print(f"watch drain: not finished ({result['backlogDerivedAtDeadline']} of {args.backlog} derived again)")
    print(f"watch exit status: {result['watchExitStatus']}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--backlog", type=int, default=20000)
    parser.add_argument("--rate", type=float, default=100)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--parallel", type=int, default=2)
    parser.add_argument("--poll-ms", type=float, default=10)
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument("--backlog-kind", choices=["bump", "invalidate", "never"], default="bump",
                        help="how the backlog is made stale: a logic version bump (default), `rederive invalidate`, "
                             "or never derived at all (a first deployment on an imported table)")
    parser.add_argument("--no-plain-beside-inserts", action="store_true",
                        help="skip the second baseline: a plain run while the same inserts and polls go on")
    parser.add_argument("--rounds", type=int, default=1,
                        help="measure this many times, each on fresh copies of the same backlog, and give the medians")
    parser.add_argument("--drain-deadline", type=float, default=1800, help="seconds after the inserts to wait for the backlog")
    parser.add_argument("--watch-arg", action="append", default=[],
                        help="an argument more for `rederive watch` (repeat it), such as --watch-arg=--max-rate --watch-arg=5000")
    parser.add_argument("--watch-log-level", choices=["debug", "info"],
                        help="the watcher's and the plain run's --log-level, as JSON lines into BENCH_DIR/watch-latency-STORE/watch-STORE.log and run-STORE.log (debug logs each commit)")
    parser.add_argument("--backlog-from", metavar="FILE",
                        help="SQLite only: start from this copy of an earlier run's backlog.sqlite (BENCH_DIR/watch-latency-sqlite/), "
                             "made with the same --backlog and --backlog-kind, rather than generate and derive one again")
    args = parser.parse_args()
    if args.backlog_from and (args.store != "sqlite" or not os.path.isfile(args.backlog_from)):
        raise SystemExit("--backlog-from needs --store sqlite and an existing file")
    if not 1 <= args.parallel <= 64 or not 0 < args.rate <= 10000 or not 0 < args.seconds <= 3600 or not 1 <= args.backlog <= 10_000_000 \
            or not 1 <= args.rounds <= 20:
        raise SystemExit("--parallel 1...64, --rate up to 10000, --seconds up to 3600, --backlog up to 10,000,000, --rounds 1...20")

    bench = os.environ.get("BENCH_DIR", os.path.join(ROOT, ".build-bench"))
    args.work = os.path.join(bench, f"watch-latency-{args.store}")
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    rederive = rederive_binary(args.store)
    log(run([rederive, "--version"]).stdout.strip())

    target = SQLiteTarget(args.work) if args.store == "sqlite" else PostgresTarget(args.work)
    try:
        template = target.prepare_template()
        if args.backlog_from:
            log(f"backlog: copied from {args.backlog_from}")
            shutil.copyfile(args.backlog_from, template)
        else:
            log(f"backlog: generate {args.backlog} records, derive them, make them stale ({args.backlog_kind})")
            run([rederive, "generate", "--db", template, "--count", str(args.backlog), "--seed", str(args.seed), "--corrupt", "0"])
            if args.backlog_kind != "never":
                run([rederive, "run", "--db", template, "--progress", "none", "--parallel", str(args.parallel)])
            if args.backlog_kind == "invalidate":
                run([rederive, "invalidate", "--db", template])
            elif args.backlog_kind == "bump":
                target.mark_bumped(template)

        rounds = []
        for number in range(1, args.rounds + 1):
            if args.rounds > 1:
                log(f"round {number} of {args.rounds}")
            rounds.append(measure_round(target, rederive, args, number))
    finally:
        target.close()

    result = dict(rounds[-1])
    result["rounds"] = rounds
    for key in ("drainRateOfPlainRun", "drainRateOfPlainRunBesideInserts"):
        ratios = sorted(entry[key] for entry in rounds if entry.get(key))
        if ratios:
            result[f"median {key}"] = ratios[len(ratios) // 2] if len(ratios) % 2 else (ratios[len(ratios) // 2 - 1] + ratios[len(ratios) // 2]) / 2
    with open(os.path.join(bench, f"watch-latency-{args.store}.json"), "w") as out:
        json.dump(result, out, indent=2)
    if args.rounds > 1:
        for key, label in (("drainRateOfPlainRun", "the plain run"), ("drainRateOfPlainRunBesideInserts", "the plain run beside the same inserts")):
            ratios = [entry.get(key) for entry in rounds]
            if all(ratios):
                print(f"watch drain against {label}, by round: " + ", ".join(f"{ratio * 100:.0f} %" for ratio in ratios)
                      + f"; median {result['median ' + key] * 100:.0f} %")
        print("latency p50 / p99 by round: " + ", ".join(
            f"{entry['latencySeconds']['p50'] * 1000:.0f} / {entry['latencySeconds']['p99'] * 1000:.0f} ms" for entry in rounds))


if __name__ == "__main__":
    main()
