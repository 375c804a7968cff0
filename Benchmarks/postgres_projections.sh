#!/usr/bin/env bash
# Server CPU per record of a bump on PostgreSQL, from projections and from payloads, side by side:
# bash Benchmarks/postgres_projections.sh
#
# Starts a throwaway PostgreSQL 15 cluster (initdb and pg_ctl from $POSTGRES_BIN, as user postgres when
# run as root, on a temporary directory and a free port, server defaults plus pg_stat_statements;
# stopped and deleted on exit, whatever happens) and fills room_scans with PG_PROJECTIONS_RECORDS
# records: the 13 real RoomPlan exports round-robin, zlib level 6 (Benchmarks/make_db.py's rows),
# inserted by the server from one copy of each, through rederive's trigger as an app's insert would.
# One untimed `rederive run` derives them and writes their projections. Then, round by round, each
# variant on the same database:
#   projection  invalidate --processor wall_metrics, then `rederive run`: the claims hand out projections
#   payload     the same bump with `run --no-projection`: the claims read every payload (and the commits
#               write every projection again, as that flag does)
# One worker process, `run --parallel PARALLEL`, default batch. Measured per run: wall and CPU seconds
# (user + sys) of the worker from bash's `time`; the server's CPU seconds, utime + stime of every
# postgres process from /proc/<pid>/stat (the postmaster's cutime + cstime holding those of backends
# that ended), before and after, once no other backend is left; each statement's time inside the
# server from pg_stat_statements (execution and planning). Before each timed run, untimed: the
# invalidation, VACUUM ANALYZE, pg_stat_statements_reset(). Every run must have handled every record,
# none failed, and the projection run must have used a projection for every record.
#
# Environment: REDERIVE_BIN (a rederive built with the PostgreSQL trait; otherwise this builds one with
# `swift build -c release --traits PostgreSQL`), PG_PROJECTIONS_RECORDS (10010), PG_PROJECTIONS_ROUNDS
# (3), PG_PROJECTIONS_PARALLEL (2), POSTGRES_BIN (/usr/lib/postgresql/15/bin), BENCH_DIR (.build-bench).
set -euo pipefail
cd "$(dirname "$0")/.."
export BENCH_DIR="${BENCH_DIR:-$PWD/.build-bench}"
records="${PG_PROJECTIONS_RECORDS:-10010}"
rounds="${PG_PROJECTIONS_ROUNDS:-3}"
parallel="${PG_PROJECTIONS_PARALLEL:-2}"
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
work="$BENCH_DIR/postgres-projections"
rm -rf "$work"
mkdir -p "$work"
start_cluster pgproj "shared_preload_libraries = 'pg_stat_statements'" "pg_stat_statements.track = top" \
    "pg_stat_statements.track_planning = on"
url="postgres://postgres@127.0.0.1:$port/bench?sslmode=disable"
pg() { "$pgbin/psql" -h 127.0.0.1 -p "$port" -U postgres -X -v ON_ERROR_STOP=1 -A -t -q -F ' ' -d bench "$@"; }
"$pgbin/psql" -h 127.0.0.1 -p "$port" -U postgres -X -q -d postgres -c "CREATE DATABASE bench"
pg -c "CREATE EXTENSION pg_stat_statements"

# The corpus: one copy of each export in a scratch table, then every record inserted by the server.
"$rederive" run --db "$url" --progress none >/dev/null
python3 - <<'PY' >"$work/exports.copy"
import glob, os, sys
sys.path.insert(0, "Benchmarks")
import make_db
exports = len(glob.glob(os.path.join(make_db.EXPORTS, "*.json")))
for number, (key, blob) in enumerate(make_db.rows("exports", exports)):
    print(f"{number}\t{key.split('#')[0]}\t\\\\x{blob.hex()}")
PY
pg -c "CREATE TABLE exports (number int, name text, payload bytea)"
pg -c "\\copy exports FROM '$work/exports.copy'"
pg -c "INSERT INTO room_scans (scan_id, payload)
       SELECT e.name || '#' || i, e.payload FROM generate_series(0, $records - 1) AS i
       JOIN exports e ON e.number = i % (SELECT count(*) FROM exports) ORDER BY i"
pg -c "DROP TABLE exports"
echo "corpus: $(pg -c "SELECT count(*), pg_size_pretty(sum(octet_length(payload))) FROM room_scans")" >&2
"$rederive" run --db "$url" --parallel "$parallel" --progress none >&2

# How the projections are stored: inline and uncompressed (no TOAST), whatever their size.
pg -c "SELECT count(*), round(avg(octet_length(bytes))), round(avg(pg_column_size(bytes))),
              count(*) FILTER (WHERE pg_column_compression(bytes) IS NOT NULL),
              pg_relation_size('rederive_projections'),
              (SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE relname = 'rederive_projections')
       FROM rederive_projections" >"$work/storage"

results="$work/results.txt"
: >"$results"
load_before=$(cut -d' ' -f1 /proc/loadavg)
for round in $(seq 1 "$rounds"); do
    for variant in projection payload; do
        tag="$work/$variant-$round"
        "$rederive" invalidate --db "$url" --processor wall_metrics >/dev/null
        pg -c "VACUUM ANALYZE" >/dev/null
        quiesce
        before=$(pg -c "SELECT coalesce(max(id), 0) FROM rederive_runs")
        pg -c "SELECT pg_stat_statements_reset()" >/dev/null
        quiesce
        cpu_before=$(server_cpu)
        flags=()
        if [ "$variant" = payload ]; then flags=(--no-projection); fi
        time_workers "$tag" 1 "$rederive" run --db "$url" --parallel "$parallel" --progress none "${flags[@]}"
        pg -c "SELECT calls, total_exec_time, total_plan_time, regexp_replace(query, '\s+', ' ', 'g') FROM pg_stat_statements
               WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())" >"$tag.statements"
        quiesce
        cpu_after=$(server_cpu)
        read -r unchanged failed <<<"$(pg -c "SELECT coalesce(sum(unchanged), 0), coalesce(sum(failed), 0) FROM $runs_counted WHERE id > $before")"
        if [ "$unchanged" -ne "$records" ] || [ "$failed" -ne 0 ]; then
            echo "$variant round $round: expected $records records unchanged, none failed; got $unchanged unchanged, $failed failed" >&2
            cat "$tag.out1" >&2
            exit 1
        fi
        if [ "$variant" = projection ] && ! grep -q "projections: $(python3 -c "print(f'{$records:,}')") used, 0 derived" "$tag.out1"; then
            echo "projection round $round did not derive every record from its projection:" >&2
            cat "$tag.out1" >&2
            exit 1
        fi
        read -r wall user system <"$tag.time"
        echo "$variant $round $wall $user $system $(python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$cpu_before" "$cpu_after")" \
            | tee -a "$results" >&2
    done
done

python3 - "$work" "$records" "$parallel" "$(git rev-parse --short HEAD)" "$load_before" <<'PY'
import os, re, statistics, sys
work, records, parallel, commit, load_before = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
runs = {}
for line in open(os.path.join(work, "results.txt")):
    variant, round_, wall, user, system, server = line.split()
    runs.setdefault(variant, {})[int(round_)] = (float(wall), float(user) + float(system), float(server))
rounds = sorted(runs["projection"])
median = lambda variant, i: statistics.median(runs[variant][r][i] for r in rounds)
ms = lambda seconds: seconds * 1000 / records
print(f"\ncommit {commit}, {records:,} real-export records, one worker `run --parallel {parallel}`, median of {len(rounds)} "
      f"interleaved rounds; {os.cpu_count()} cores, load average {load_before} before / {os.getloadavg()[0]:.2f} after\n")
print("| bump of wall_metrics | median wall s | records/s | worker CPU ms/record | server CPU ms/record | server cores used |")
print("|---|---:|---:|---:|---:|---:|")
label = {"payload": "from payloads (`run --no-projection`)", "projection": "from projections (`run`)"}
for variant in ("payload", "projection"):
    wall, worker, server = (median(variant, i) for i in range(3))
    print(f"| {label[variant]} | {wall:.3f} | {records / wall:,.0f} | {ms(worker):.3f} | **{ms(server):.3f}** | {server / wall:.2f} |")
pairs = [runs["payload"][r][2] / runs["projection"][r][2] for r in rounds]
print(f"\nServer CPU, payload path / projection path, by round: {', '.join(f'{p:.2f}' for p in pairs)} "
      f"(median {statistics.median(pairs):.2f}; target ≥ 3).")

# Statement time inside the server, last round, per record.
print("\n| statement (last round) | payload path µs/record (exec + plan) | projection path µs/record (exec + plan) |")
print("|---|---:|---:|")
def statements(variant):
    found = {}
    for line in open(os.path.join(work, f"{variant}-{rounds[-1]}.statements")):
        calls, exec_ms, plan_ms, query = line.split(" ", 3)
        found[re.sub(r"\s+", " ", query.strip())[:90]] = float(exec_ms) + float(plan_ms)
    return found
payload, projection = statements("payload"), statements("projection")
for query in sorted(set(payload) | set(projection), key=lambda q: -(payload.get(q, 0) + projection.get(q, 0)))[:12]:
    print(f"| `{query}` | {payload.get(query, 0) * 1000 / records:.1f} | {projection.get(query, 0) * 1000 / records:.1f} |")
print(f"| total | {sum(payload.values()) * 1000 / records:.1f} | {sum(projection.values()) * 1000 / records:.1f} |")

count, mean, stored, compressed, heap, toast = open(os.path.join(work, "storage")).read().split()
print(f"\nProjections stored: {int(count):,}, {mean} bytes on average, {stored} bytes in the row (pg_column_size), "
      f"{compressed} compressed; table {int(heap) / 1e6:.1f} MB, its TOAST table {int(toast):,} bytes.")
PY
