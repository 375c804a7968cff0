#!/usr/bin/env bash
# Workers sharing one PostgreSQL server: bash Benchmarks/postgres.sh
#
# Starts a throwaway PostgreSQL 15 cluster (initdb and pg_ctl from $POSTGRES_BIN, as user postgres when
# run as root, on a temporary directory and a free port, with pg_stat_statements loaded; stopped and
# deleted on exit, whatever happens), writes the same `rederive generate` corpus into it and into a
# SQLite file, and measures, in one run:
#
# 1. Throughput, side by side, interleaved round by round: the SQLite runner (`run --parallel 2`), one
#    worker process on PostgreSQL (`run --parallel 2`) and two concurrent ones (`run --parallel 1`
#    each; wall time until both end), on a first derivation (after `rederive reset --yes`) and on a
#    re-derivation whose values do not change (after `rederive invalidate`).
# 2. What one server feeds: FEED_WORKERS concurrent `run --parallel 1 --batch-size FEED_BATCH`
#    processes on a bump of `room_type` (`invalidate --processor room_type`: it derives from stored
#    values, reads no payload and is trivial, so the workers mostly claim and commit) and, beside it,
#    on a bump of `element_counts` (every payload read and inflated: a real derivation).
# 3. Lease takeover: worker A (`--lease-duration LEASE`) is killed with SIGKILL while it holds claims,
#    near the end of an `element_counts` bump that worker B shares; psql polls (one session, about every
#    50 ms) until every record A held is claimed by B or committed.
#
# Every PostgreSQL run is measured the same way: wall and CPU seconds (user + sys) of the worker
# processes from bash's `time`; the server's CPU seconds, the utime + stime of every postgres process
# from /proc (the postmaster's cutime + cstime holding those of backends that ended); rows written, the
# deltas of n_tup_ins + n_tup_upd + n_tup_del in pg_stat_user_tables, read once no other backend is
# left (a backend flushes its counts when it ends); and the statements executed, from
# pg_stat_statements (claims: executions of the claiming statement, `WITH picked AS (... FOR UPDATE OF
# r SKIP LOCKED) UPDATE rederive_records ...`). Before each timed run, untimed: reset or invalidate,
# VACUUM ANALYZE, and pg_stat_statements_reset(). Every run must have handled every record (the counts
# of the runs it recorded, in rederive_runs or `history --format json`), none failed.
#
# Environment: REDERIVE_BIN (a rederive built with the PostgreSQL trait; otherwise this builds one with
# `swift build -c release --traits PostgreSQL`), POSTGRES_RECORDS (5000), POSTGRES_SEED (10),
# POSTGRES_ROUNDS (5), POSTGRES_FEED_RECORDS (10000), POSTGRES_FEED_WORKERS (8), POSTGRES_FEED_BATCH
# (10), POSTGRES_FEED_ROUNDS (3), POSTGRES_TAKEOVERS (5), POSTGRES_LEASE (2 seconds), POSTGRES_TAKEOVER_LEFT (500: A is killed
# once at most this many records are left to commit), POSTGRES_ONLY
# (throughput,feed,takeover), POSTGRES_BIN (/usr/lib/postgresql/15/bin), BENCH_DIR (.build-bench).
set -euo pipefail
cd "$(dirname "$0")/.."
export BENCH_DIR="${BENCH_DIR:-$PWD/.build-bench}"
records="${POSTGRES_RECORDS:-5000}"
seed="${POSTGRES_SEED:-10}"
rounds="${POSTGRES_ROUNDS:-5}"
feed_records="${POSTGRES_FEED_RECORDS:-10000}"
feed_workers="${POSTGRES_FEED_WORKERS:-8}"
feed_batch="${POSTGRES_FEED_BATCH:-10}"
feed_rounds="${POSTGRES_FEED_ROUNDS:-3}"
takeovers="${POSTGRES_TAKEOVERS:-5}"
lease="${POSTGRES_LEASE:-2}"
takeover_left="${POSTGRES_TAKEOVER_LEFT:-500}"
only="${POSTGRES_ONLY:-throughput,feed,takeover}"
pgbin="${POSTGRES_BIN:-/usr/lib/postgresql/15/bin}"
mkdir -p "$BENCH_DIR"

if [ -n "${REDERIVE_BIN:-}" ]; then
    rederive="$REDERIVE_BIN"
else
    swift build -c release --traits PostgreSQL --product rederive
    rederive="$(swift build -c release --traits PostgreSQL --show-bin-path)/rederive"
fi
"$rederive" --version

source Benchmarks/postgres-cluster.sh
# What each run measured, kept after the cluster is gone.
work="$BENCH_DIR/postgres-run"
rm -rf "$work"
start_cluster pgbench "shared_preload_libraries = 'pg_stat_statements'" "pg_stat_statements.track = top" \
    "pg_stat_statements.max = 10000" "pg_stat_statements.track_planning = on"
mkdir -p "$work"

database=bench
url="postgres://postgres@127.0.0.1:$port/$database?sslmode=disable"
pg() { "$pgbin/psql" -h 127.0.0.1 -p "$port" -U postgres -X -v ON_ERROR_STOP=1 -A -t -q -F ' ' -d "$database" "$@"; }
database=postgres pg -c "CREATE DATABASE bench"
pg -c "CREATE EXTENSION pg_stat_statements"
sqlite="$work/corpus.sqlite"

# Every run with its counts: its row's plus the shares its workers' commits added.
table_rows() { pg -c "SELECT relname, n_tup_ins, n_tup_upd, n_tup_del FROM pg_stat_user_tables ORDER BY relname"; }
last_run() { pg -c "SELECT coalesce(max(id), 0) FROM rederive_runs"; }

# Makes every record stale for variant $1 (untimed): a first derivation, a re-derivation, or a bump.
prepare() {
    case $1 in
        *-first) "$rederive" reset --yes --db "$2" >/dev/null ;;
        *-again) "$rederive" invalidate --db "$2" >/dev/null ;;
        *-room_type) "$rederive" invalidate --db "$2" --processor room_type >/dev/null ;;
        *-element_counts) "$rederive" invalidate --db "$2" --processor element_counts >/dev/null ;;
    esac
}

results="$work/results.txt"
: >"$results"

# Times `rederive run` in $3 processes of --parallel $4 (and --batch-size $5 when given) on PostgreSQL,
# for variant $1, round $2, expecting $6 records handled; appends the measurements to $results.
measure_postgres() {
    local variant=$1 round=$2 processes=$3 parallel=$4 batch=$5 expected=$6 tag="$work/$1-$2"
    prepare "$variant" "$url"
    pg -c "VACUUM ANALYZE" >/dev/null
    quiesce
    local before
    before=$(last_run)
    table_rows >"$tag.rows-before"
    pg -c "SELECT pg_stat_statements_reset()" >/dev/null
    quiesce
    local cpu_before
    cpu_before=$(server_cpu)
    time_workers "$tag" "$processes" "$rederive" run --db "$url" --parallel "$parallel" ${batch:+--batch-size "$batch"} --progress none
    # The workers' statements are all counted once they ended: before any query of this script's.
    pg -c "SELECT calls, rows, total_exec_time, total_plan_time, regexp_replace(query, '\s+', ' ', 'g') FROM pg_stat_statements
           WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())" >"$tag.statements"
    quiesce
    local cpu_after
    cpu_after=$(server_cpu)
    table_rows >"$tag.rows-after"
    local handled
    handled=$(pg -c "SELECT coalesce(sum(derived), 0), coalesce(sum(unchanged), 0), coalesce(sum(failed), 0),
                     coalesce(sum(skipped), 0), count(*) FROM $runs_counted WHERE id > $before")
    local derived unchanged failed skipped runs
    read -r derived unchanged failed skipped runs <<<"$handled"
    # One run per process, or one run the processes share.
    if [ $((derived + unchanged)) -ne "$expected" ] || [ "$failed" -ne 0 ] || [ "$runs" -lt 1 ] || [ "$runs" -gt "$processes" ]; then
        echo "$variant round $round: expected $expected records handled by $processes runs, none failed;" \
            "rederive_runs says: $derived derived, $unchanged unchanged, $failed failed, $skipped skipped in $runs runs" >&2
        exit 1
    fi
    read -r wall user system <"$tag.time"
    local server
    server=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$cpu_before" "$cpu_after")
    echo "$variant $round $wall $user $system $server $derived $unchanged $skipped $expected" | tee -a "$results" >&2
}

# The same for the SQLite runner: one `rederive run --parallel 2` on the SQLite copy of the corpus.
measure_sqlite() {
    local variant=$1 round=$2 expected=$3 tag="$work/$1-$2"
    prepare "$variant" "$sqlite"
    local before
    before=$("$rederive" history --db "$sqlite" --format json --limit 1 | python3 -c 'import json, sys; h = json.load(sys.stdin); print(h[0]["id"] if h else 0)')
    TIMEFORMAT='%3R %3U %3S'
    { time "$rederive" run --db "$sqlite" --parallel 2 --progress none >"$tag.out1" 2>&1; } 2>"$tag.time"
    local handled
    handled=$("$rederive" history --db "$sqlite" --format json --limit 5 | python3 -c '
import json, sys
runs = [r for r in json.load(sys.stdin) if r["id"] > int(sys.argv[1])]
print(sum(r["derived"] for r in runs), sum(r["unchanged"] for r in runs), sum(r["failed"] for r in runs), len(runs))' "$before")
    local derived unchanged failed runs
    read -r derived unchanged failed runs <<<"$handled"
    if [ $((derived + unchanged)) -ne "$expected" ] || [ "$failed" -ne 0 ] || [ "$runs" -ne 1 ]; then
        echo "$variant round $round: expected $expected records handled, none failed; history says:" \
            "$derived derived, $unchanged unchanged, $failed failed in $runs runs" >&2
        exit 1
    fi
    read -r wall user system <"$tag.time"
    echo "$variant $round $wall $user $system - $derived $unchanged 0 $expected" | tee -a "$results" >&2
}

# One more, untimed run of variant $1 with the feed's workers, sampling what the server's backends do
# about every 50 ms (pg_stat_activity: the statement and its wait event, none while on a CPU).
sample_waits() {
    local variant=$1 tag="$work/$1-sampled"
    prepare "$variant" "$url"
    pg -c "VACUUM ANALYZE" >/dev/null
    quiesce
    coproc SAMPLE { "$pgbin/psql" -h 127.0.0.1 -p "$port" -U postgres -X -A -t -q -F '|' -d "$database" 2>"$tag.psql"; }
    local sample_in=${SAMPLE[1]} sample_out=${SAMPLE[0]}
    local pids=() line
    for i in $(seq 1 "$feed_workers"); do
        "$rederive" run --db "$url" --parallel 1 --batch-size "$feed_batch" --progress none >"$tag.out$i" 2>&1 &
        pids+=($!)
        started_pids+=($!)
    done
    : >"$tag.samples"
    while kill -0 "${pids[@]}" 2>/dev/null; do
        echo "SELECT coalesce(wait_event_type || ':' || wait_event, 'on CPU'), regexp_replace(query, '\s+', ' ', 'g')
              FROM pg_stat_activity WHERE backend_type = 'client backend' AND state = 'active' AND pid <> pg_backend_pid();
              SELECT 'end';" >&"$sample_in"
        while read -r -t 10 line <&"$sample_out" && [ "$line" != end ]; do echo "$line" >>"$tag.samples"; done
        sleep 0.05
    done
    echo '\q' >&"$sample_in"
    for pid in "${pids[@]}"; do wait "$pid" || { echo "$variant (sampled): a worker failed" >&2; cat "$tag".out* >&2; exit 1; }; done
    echo "$variant sampled: $(wc -l <"$tag.samples") backend samples" >&2
}

# Worker A is killed with SIGKILL near the end of an element_counts bump that B shares, while A holds
# claims; polls until each record A held is claimed by B or committed. Appends to $takeover_results.
takeover_results="$work/takeover.txt"
: >"$takeover_results"
takeover() {
    local trial=$1 tag="$work/takeover-$1"
    "$rederive" invalidate --db "$url" --processor element_counts >/dev/null
    quiesce
    local before
    before=$(last_run)
    # Killed once no more than this many records are left to commit: B derives those in well under a lease.
    local remaining=$takeover_left
    coproc POLL { "$pgbin/psql" -h 127.0.0.1 -p "$port" -U postgres -X -A -t -q -F ' ' -d "$database" 2>"$tag.psql"; }
    local poll_in=${POLL[1]} poll_out=${POLL[0]}
    "$rederive" run --db "$url" --parallel 1 --lease-duration "$lease" --progress none >"$tag.a" 2>&1 &
    local a=$!
    started_pids+=("$a")
    "$rederive" run --db "$url" --parallel 1 --lease-duration "$lease" --progress none >"$tag.b" 2>&1 &
    local b=$!
    started_pids+=("$b")
    local line token="" held=0 committed=0 killed=""
    for _ in $(seq 1 2000); do
        echo "SELECT (SELECT coalesce(sum(derived + unchanged), 0) FROM $runs_counted WHERE id > $before),
              coalesce((SELECT token FROM rederive_leases WHERE process_id = $a), '-'),
              (SELECT count(*) FROM rederive_records WHERE claimed_by = (SELECT token FROM rederive_leases
                  WHERE process_id = $a));" >&"$poll_in"
        read -r -t 10 line <&"$poll_out"
        read -r committed token held <<<"$line"
        if [ "$held" -gt 0 ] && [ "$committed" -ge $((records - remaining)) ]; then
            kill -KILL "$a"
            killed=$(date +%s.%N)
            break
        fi
        if ! kill -0 "$a" 2>/dev/null; then break; fi
        sleep 0.01
    done
    if [ -z "$killed" ]; then
        echo "takeover $trial: A ended or never held claims near the end ($committed of $records committed); raise POSTGRES_RECORDS" >&2
        exit 1
    fi
    wait "$a" 2>/dev/null || true
    # What A held at the kill, and when its lease expires.
    echo "DROP TABLE IF EXISTS bench_held; CREATE TABLE bench_held AS SELECT record_id AS id FROM rederive_records WHERE claimed_by = '$token';
          SELECT (SELECT count(*) FROM bench_held), (SELECT extract(epoch FROM expires_at) FROM rederive_leases WHERE token = '$token'),
                 (SELECT extract(epoch FROM renewed_at) FROM rederive_leases WHERE token = '$token');" >&"$poll_in"
    read -r -t 10 line <&"$poll_out"
    local count expires renewed
    read -r count expires renewed <<<"$line"
    local now reaped="" taken="" alive waiting
    for _ in $(seq 1 600); do
        echo "SELECT extract(epoch FROM clock_timestamp()), (SELECT count(*) FROM rederive_leases WHERE token = '$token'),
              (SELECT count(*) FROM bench_held h JOIN rederive_records r ON r.source = 'room_scans' AND r.record_id = h.id
               WHERE (r.claimed_by IS NULL OR r.claimed_by = '$token')
               AND NOT EXISTS (SELECT 1 FROM rederive_stamps s WHERE s.pipeline = 'roomscan'
                   AND s.processor = 'element_counts' AND s.record_id = h.id AND s.current));" >&"$poll_in"
        read -r -t 10 line <&"$poll_out"
        read -r now alive waiting <<<"$line"
        if [ -z "$reaped" ] && [ "$alive" = 0 ]; then reaped=$now; fi
        if [ "$waiting" = 0 ]; then taken=$now; break; fi
        sleep 0.05
    done
    echo '\q' >&"$poll_in"
    if [ -z "$taken" ]; then
        echo "takeover $trial: A's $count records were not taken over within 30 s of the kill" >&2
        exit 1
    fi
    wait "$b" || { echo "takeover $trial: worker B failed:" >&2; cat "$tag.b" >&2; exit 1; }
    local ended
    ended=$(date +%s.%N)
    local handled
    handled=$(pg -c "SELECT coalesce(sum(derived + unchanged), 0), coalesce(sum(failed), 0) FROM $runs_counted WHERE id > $before")
    local done failed
    read -r done failed <<<"$handled"
    if [ "$done" -ne "$records" ] || [ "$failed" -ne 0 ]; then
        echo "takeover $trial: A and B handled $done of $records records, $failed failed" >&2
        exit 1
    fi
    echo "takeover $trial held $count kill $killed renewed $renewed expires $expires reaped $reaped taken $taken ended $ended" \
        | tee -a "$takeover_results" >&2
}

load_before=$(cut -d' ' -f1 /proc/loadavg)
IFS=, read -r -a phases <<<"$only"
for phase in "${phases[@]}"; do
    case $phase in
        throughput)
            rm -f "$sqlite"
            "$rederive" generate --db "$sqlite" --count "$records" --seed "$seed" >&2
            "$rederive" generate --db "$url" --count "$records" --seed "$seed" >&2
            "$rederive" run --db "$url" --progress none >/dev/null
            for round in $(seq 1 "$rounds"); do
                measure_sqlite sqlite-first "$round" "$records"
                measure_sqlite sqlite-again "$round" "$records"
                measure_postgres pg1-first "$round" 1 2 "" "$records"
                measure_postgres pg1-again "$round" 1 2 "" "$records"
                measure_postgres pg2-first "$round" 2 1 "" "$records"
                measure_postgres pg2-again "$round" 2 1 "" "$records"
            done
            ;;
        feed)
            # More records than the corpus above: generate adds the missing ones with the same seed.
            "$rederive" generate --db "$url" --count "$feed_records" --seed "$seed" >&2
            "$rederive" run --db "$url" --progress none >/dev/null
            for round in $(seq 1 "$feed_rounds"); do
                measure_postgres feed-room_type "$round" "$feed_workers" 1 "$feed_batch" "$feed_records"
                measure_postgres feed-element_counts "$round" "$feed_workers" 1 "$feed_batch" "$feed_records"
            done
            sample_waits feed-room_type
            sample_waits feed-element_counts
            ;;
        takeover)
            records=$(pg -c "SELECT count(*) FROM room_scans" 2>/dev/null || echo 0)
            if [ "$records" = 0 ]; then
                records="${POSTGRES_RECORDS:-5000}"
                "$rederive" generate --db "$url" --count "$records" --seed "$seed" >&2
                "$rederive" run --db "$url" --progress none >/dev/null
            fi
            for trial in $(seq 1 "$takeovers"); do takeover "$trial"; done
            ;;
        *) echo "unknown phase $phase in POSTGRES_ONLY" >&2; exit 1 ;;
    esac
done
load_after=$(cut -d' ' -f1 /proc/loadavg)


python3 - "$work" "$(git rev-parse --short HEAD)" "$load_before" "$load_after" "$lease" "$feed_workers" "$feed_batch" \
    "$(nproc)" <<'PY' | tee "$BENCH_DIR/postgres-report.md"
import glob, os, statistics, sys
work, commit, load_before, load_after = sys.argv[1:5]
lease, feed_workers, feed_batch, cores = float(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7]), int(sys.argv[8])
median = statistics.median

runs = {}
for line in open(f"{work}/results.txt"):
    variant, rnd, wall, user, system, server, derived, unchanged, skipped, expected = line.split()
    runs.setdefault(variant, []).append(dict(
        round=int(rnd), wall=float(wall), cpu=float(user) + float(system),
        server=None if server == "-" else float(server), records=int(expected),
        derived=int(derived), unchanged=int(unchanged)))

def table_rows(path):
    rows = {}
    for line in open(path):
        name, ins, upd, dele = line.split()
        rows[name] = (int(ins), int(upd), int(dele))
    return rows

def written(variant, rnd):
    """Rows written per table in one run: n_tup_ins + n_tup_upd + n_tup_del deltas."""
    before, after = table_rows(f"{work}/{variant}-{rnd}.rows-before"), table_rows(f"{work}/{variant}-{rnd}.rows-after")
    return {name: sum(a) - sum(before.get(name, (0, 0, 0))) for name, a in after.items()}

# pg_stat_statements normalizes constants (NULL becomes $n): statements are told apart by what they contain.
LABELS = [
    (("WITH picked AS",), "claim: pick and mark (FOR UPDATE SKIP LOCKED)"),
    (("SELECT r.record_id, r.generation",), "claim: recheck the picked records"),
    (('SELECT t."id", t."payload"',), "claim: read payloads"),
    (("SELECT count(*) FROM (SELECT 1 FROM rederive_records WHERE claimed_by IS NOT NULL",), "claim found nothing: do others hold claims?"),
    (("UPDATE rederive_records SET claimed_by", "WHERE source"), "claim or commit: give records back"),
    (("UPDATE rederive_leases SET renewed_at",), "lease: renew (heartbeat)"),
    (("SELECT count(*) FROM rederive_leases WHERE token",), "claim: is the lease still there?"),
    (("WITH dead AS",), "lease: reap expired leases (by a claim, at most every poll interval)"),
    (("DELETE FROM rederive_leases WHERE token IN",), "lease: reap expired leases (by a claim, at most every poll interval)"),
    (("UPDATE rederive_records r SET claimed_by", "SELECT x.source"), "lease: free orphaned claims (by a claim, at most every poll interval)"),
    (("UPDATE rederive_records r SET claimed_by", "FROM unnest"), "commit: fence and release (accept)"),
    (('INSERT INTO "room_scans_derived"',), "commit: write changed values"),
    (("INSERT INTO rederive_stamps",), "commit: stamps"),
    (("INSERT INTO rederive_replaced",), "commit: keep replaced values"),
    (("INSERT INTO rederive_run_shares",), "commit: the worker's share of the run's counts"),
    (("DELETE FROM rederive_failures f USING",), "commit: clear failures"),
    (('SELECT "id", ',), "read stored values"),
    (("SELECT count(*) FROM rederive_stamps WHERE pipeline",), "run start: pending count"),
    (("COMMIT",), "COMMIT"),
    (("BEGIN",), "BEGIN"),
]

def label(query):
    for parts, name in LABELS:
        if query.startswith(parts[0]) and all(part in query for part in parts[1:]):
            return name
    return query[:70]

def statements(variant, rnd):
    groups = {}
    for line in open(f"{work}/{variant}-{rnd}.statements"):
        calls, rows, total, plan, query = line.rstrip("\n").split(" ", 4)
        g = groups.setdefault(label(query), [0, 0, 0.0, 0.0])
        g[0] += int(calls); g[1] += int(rows); g[2] += float(total); g[3] += float(plan)
    return groups

def claims(variant, rnd):
    g = statements(variant, rnd).get(LABELS[0][1], [0, 0, 0.0, 0.0])
    return g[0], g[1]

print(f"\ncommit {commit}, {cores} cores, load average {load_before} before / {load_after} after; "
      f"medians of {max((len(v) for v in runs.values()), default=0)} interleaved rounds\n")

LONG = {
    "sqlite-first": "SQLite, `run --parallel 2`: first derivation",
    "sqlite-again": "SQLite, `run --parallel 2`: re-derivation, values unchanged",
    "pg1-first": "PostgreSQL, 1 worker (`--parallel 2`): first derivation",
    "pg1-again": "PostgreSQL, 1 worker (`--parallel 2`): re-derivation, values unchanged",
    "pg2-first": "PostgreSQL, 2 workers (`--parallel 1` each): first derivation",
    "pg2-again": "PostgreSQL, 2 workers (`--parallel 1` each): re-derivation, values unchanged",
    "feed-room_type": f"PostgreSQL, {feed_workers} workers, `--batch-size {feed_batch}`: bump `room_type` (no payload read)",
    "feed-element_counts": f"PostgreSQL, {feed_workers} workers, `--batch-size {feed_batch}`: bump `element_counts` (inflates)",
}

def summary(variant):
    samples = runs[variant]
    n = samples[0]["records"]
    wall = median(s["wall"] for s in samples)
    cpu = median(s["cpu"] for s in samples)
    out = dict(records=n, wall=wall, rate=n / wall, cpu_ms=1000 * cpu / n, cores=median(s["cpu"] / s["wall"] for s in samples))
    if samples[0]["server"] is not None:
        out["server_ms"] = 1000 * median(s["server"] for s in samples) / n
        out["server_cores"] = median(s["server"] / s["wall"] for s in samples)
        out["rows"] = median(sum(written(variant, s["round"]).values()) / n for s in samples)
        calls = [claims(variant, s["round"]) for s in samples]
        out["claims"] = median(c for c, _ in calls)
        out["claims_s"] = median(c / s["wall"] for (c, _), s in zip(calls, samples))
        out["claimed"] = median(r for _, r in calls)
    return out

if runs:
    print("| variant | records | median wall s | records/s | worker CPU ms/record | worker cores used | server CPU ms/record "
          "| server cores used | rows written/record | claims | claims/s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
sums = {}
for variant in LONG:
    if variant not in runs:
        continue
    s = sums[variant] = summary(variant)
    server = f"{s['server_ms']:.3f} | {s['server_cores']:.2f}" if "server_ms" in s else " | "
    rows = f"{s['rows']:.2f}" if "rows" in s else ""
    claimcount = f"{s['claims']:,.0f}" if "claims" in s else ""
    claimrate = f"{s['claims_s']:,.0f}" if "claims_s" in s else ""
    print(f"| {LONG[variant]} | {s['records']:,} | {s['wall']:.3f} | {s['rate']:,.0f} | {s['cpu_ms']:.3f} | {s['cores']:.2f} "
          f"| {server} | {rows} | {claimcount} | {claimrate} |")

def pairs(a, b, key="wall"):
    by_round = {s["round"]: s[key] for s in runs[b]}
    ratios = [by_round[s["round"]] / s[key] for s in runs[a] if s["round"] in by_round]
    return f"{median(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f})"

if "pg1-first" in runs and "sqlite-first" in runs:
    print("\n| throughput ratio, median of pairs by round (min–max) | first derivation | re-derivation |")
    print("|---|---:|---:|")
    print(f"| PostgreSQL 1 worker / SQLite (wall) | {pairs('pg1-first', 'sqlite-first')} | {pairs('pg1-again', 'sqlite-again')} |")
    print(f"| PostgreSQL 2 workers / 1 worker (wall) | {pairs('pg2-first', 'pg1-first')} | {pairs('pg2-again', 'pg1-again')} |")
    print(f"| PostgreSQL 2 workers / SQLite (wall) | {pairs('pg2-first', 'sqlite-first')} | {pairs('pg2-again', 'sqlite-again')} |")

pg_variants = [v for v in LONG if v in runs and runs[v][0]["server"] is not None]
if pg_variants:
    tables = sorted({t for v in pg_variants for s in runs[v] for t, n in written(v, s["round"]).items() if n})
    print("\nrows written per record (n_tup_ins + n_tup_upd + n_tup_del deltas / records, median of rounds)\n")
    print("| table | " + " | ".join(pg_variants) + " |")
    print("|---|" + "---:|" * len(pg_variants))
    for table in tables + ["total"]:
        cells = []
        for v in pg_variants:
            n = runs[v][0]["records"]
            values = [(sum(written(v, s["round"]).values()) if table == "total" else written(v, s["round"]).get(table, 0)) / n
                      for s in runs[v]]
            cells.append(f"{median(values):.3f}")
        print(f"| {table} | " + " | ".join(cells) + " |")

    for v in ("feed-room_type", "feed-element_counts", "pg1-first"):
        if v not in runs:
            continue
        n = runs[v][0]["records"]
        groups = {}
        for s in runs[v]:
            for name, (calls, rows, total, plan) in statements(v, s["round"]).items():
                g = groups.setdefault(name, [0, 0, 0.0, 0.0])
                g[0] += calls; g[1] += rows; g[2] += total; g[3] += plan
        everything = sum(g[2] + g[3] for g in groups.values())
        rounds_n = len(runs[v])
        print(f"\nserver time by statement, {v} (pg_stat_statements total_plan_time + total_exec_time: time inside the "
              f"server, lock waits included; all {rounds_n} rounds)\n")
        print("| statement | calls/record | mean plan ms | mean execution ms | share of server time |")
        print("|---|---:|---:|---:|---:|")
        for name, (calls, rows, total, plan) in sorted(groups.items(), key=lambda item: -(item[1][2] + item[1][3]))[:12]:
            print(f"| {name} | {calls / (n * rounds_n):.3f} | {plan / max(calls, 1):.3f} | {total / max(calls, 1):.3f} "
                  f"| {100 * (total + plan) / everything:.1f} % |")

    for v in ("feed-room_type", "feed-element_counts"):
        path = f"{work}/{v}-sampled.samples"
        if not os.path.exists(path):
            continue
        samples = [line.rstrip("\n").split("|", 1) for line in open(path) if "|" in line]
        if not samples:
            continue
        by = {}
        for wait, query in samples:
            by[(label(query), wait)] = by.get((label(query), wait), 0) + 1
        print(f"\nwhat the server's busy backends were doing, {v}, {feed_workers} workers (one more run, {len(samples)} samples of "
              "pg_stat_activity, about every 50 ms: the statement and its wait event, `on CPU` when none)\n")
        print("| statement | wait event | share of samples |")
        print("|---|---|---:|")
        for (name, wait), count in sorted(by.items(), key=lambda item: -item[1])[:12]:
            print(f"| {name} | {wait} | {100 * count / len(samples):.1f} % |")

    print("\nworkers one server feeds, on paper: N = (server cores / server CPU s per record) / "
          "(worker cores / worker CPU s per record), with worker cores = server cores = "
          f"{cores} (this machine); the server's CPU per record as measured in the same scenario\n")
    print("| scenario | worker CPU ms/record | server CPU ms/record | workers fed (N) |")
    print("|---|---:|---:|---:|")
    for v in pg_variants:
        s = sums[v]
        print(f"| {v} | {s['cpu_ms']:.3f} | {s['server_ms']:.3f} | {s['cpu_ms'] / s['server_ms']:.1f} |")

if os.path.exists(f"{work}/takeover.txt") and os.path.getsize(f"{work}/takeover.txt"):
    trials = []
    for line in open(f"{work}/takeover.txt"):
        f = line.split()
        d = dict(zip(f[2::2], f[3::2]))
        trials.append({k: float(v) for k, v in d.items()})
    bound = lease + lease / 3
    print(f"\nlease takeover, `--lease-duration {lease:g}` (heartbeat every {lease / 3:.3f} s: bound {bound:.3f} s after the kill)\n")
    print("| trial | records A held | kill → lease reaped s | kill → A's records claimed by B or committed s | kill → expiry s | last renewal before the kill s |")
    print("|---:|---:|---:|---:|---:|---:|")
    for i, t in enumerate(trials, 1):
        print(f"| {i} | {t['held']:.0f} | {t['reaped'] - t['kill']:.3f} | {t['taken'] - t['kill']:.3f} | "
              f"{t['expires'] - t['kill']:.3f} | {t['kill'] - t['renewed']:.3f} |")
    taken = [t["taken"] - t["kill"] for t in trials]
    reaped = [t["reaped"] - t["kill"] for t in trials]
    print(f"\ntaken over: median {median(taken):.3f} s, max {max(taken):.3f} s (bound {bound:.3f} s: "
          f"{'within' if max(taken) <= bound else 'NOT within'}); reaped: median {median(reaped):.3f} s, max {max(reaped):.3f} s")
PY
