#!/usr/bin/env bash
# Issue 40's bump, two builds side by side: the server's and the workers' CPU per record when two
# workers bump a payload processor on PostgreSQL.
#
#     REDERIVE_BIN=path/to/rederive BASE_BIN=path/to/older/rederive bash Benchmarks/postgres-bump.sh
#
# Both builds need the PostgreSQL trait (`swift build -c release --traits PostgreSQL`). One throwaway
# cluster (Benchmarks/postgres-cluster.sh) holds a database per build, each filled by that build's
# `rederive generate --count PG_BUMP_RECORDS --seed 40` and derived once, untimed, which writes the
# projections. Then, rounds interleaved by build, two variants of `invalidate --processor wall_metrics`:
#   same   every value comes out as stored: the bump that projections made cheap for the worker
#   half   every other record's stored wall_metrics values were changed first, by hand: half the
#          values change back
# and two worker processes, `run --parallel PG_BUMP_PARALLEL` each, sharing the run. Measured per run:
# wall seconds, the workers' CPU seconds (user + sys of both, from bash's `time`), and the server's CPU
# seconds (utime + stime of every postgres process, `server_cpu`), once no backend is left. Untimed
# before each run: the change by hand, the invalidation, VACUUM ANALYZE. Every run must have handled
# every record, none failed, the expected number changed; at the end both databases must hold the
# same derived values.
#
# Environment: REDERIVE_BIN, BASE_BIN (required), PG_BUMP_RECORDS (5000), PG_BUMP_ROUNDS (3),
# PG_BUMP_PARALLEL (2), POSTGRES_BIN (/usr/lib/postgresql/15/bin), BENCH_DIR (.build-bench).
set -euo pipefail
cd "$(dirname "$0")/.."
export BENCH_DIR="${BENCH_DIR:-$PWD/.build-bench}"
records="${PG_BUMP_RECORDS:-5000}"
rounds="${PG_BUMP_ROUNDS:-3}"
parallel="${PG_BUMP_PARALLEL:-2}"
pgbin="${POSTGRES_BIN:-/usr/lib/postgresql/15/bin}"
if [ -z "${REDERIVE_BIN:-}" ] || [ -z "${BASE_BIN:-}" ]; then
    echo "set REDERIVE_BIN and BASE_BIN to two rederive builds with the PostgreSQL trait" >&2
    exit 2
fi
if [ "$records" -lt 2 ] || [ "$records" -gt 2000000 ] || [ "$rounds" -lt 1 ] || [ "$rounds" -gt 50 ] \
    || [ "$parallel" -lt 1 ] || [ "$parallel" -gt 64 ]; then
    echo "PG_BUMP_RECORDS must be 2 to 2,000,000, PG_BUMP_ROUNDS 1 to 50, PG_BUMP_PARALLEL 1 to 64" >&2
    exit 2
fi
mkdir -p "$BENCH_DIR"
declare -A bin=([new]="$REDERIVE_BIN" [base]="$BASE_BIN")
for build in new base; do echo "$build: $("${bin[$build]}" --version)" >&2; done

source Benchmarks/postgres-cluster.sh
source Benchmarks/postgres-bump-variant.sh
work="$BENCH_DIR/postgres-bump"
rm -rf "$work"
mkdir -p "$work"
start_cluster pgbump
url() { echo "postgres://postgres@127.0.0.1:$port/bench_$1?sslmode=disable"; }
pg() { local database=$1; shift; "$pgbin/psql" -h 127.0.0.1 -p "$port" -U postgres -X -v ON_ERROR_STOP=1 -A -t -q -F ' ' -d "bench_$database" "$@"; }

for build in new base; do
    "$pgbin/psql" -h 127.0.0.1 -p "$port" -U postgres -X -q -d postgres -c "CREATE DATABASE bench_$build"
    "${bin[$build]}" generate --db "$(url "$build")" --count "$records" --seed 40 >&2
    "${bin[$build]}" run --db "$(url "$build")" --parallel "$parallel" --progress none >&2
done

results="$work/results.txt"
: >"$results"
load_before=$(cut -d' ' -f1 /proc/loadavg)
for round in $(seq 1 "$rounds"); do
    for build in new base; do
        for variant in same half; do
            tag="$work/$build-$variant-$round"
            expected=$(prepare_bump "$variant" "$(url "$build")" "${bin[$build]}")
            before=$(pg "$build" -c "SELECT coalesce(max(id), 0) FROM rederive_runs")
            cpu_before=$(server_cpu)
            time_workers "$tag" 2 "${bin[$build]}" run --db "$(url "$build")" --parallel "$parallel" --progress none
            quiesce
            cpu_after=$(server_cpu)
            read -r derived unchanged failed <<<"$(pg "$build" -c "SELECT coalesce(sum(derived), 0), coalesce(sum(unchanged), 0),
                coalesce(sum(failed), 0) FROM $runs_counted WHERE id > $before")"
            if [ "$((derived + unchanged))" -ne "$records" ] || [ "$failed" -ne 0 ] || [ "$derived" -ne "$expected" ]; then
                echo "$build $variant round $round: expected $records records, $expected changed, none failed;" \
                    "got $derived changed, $unchanged unchanged, $failed failed" >&2
                cat "$tag".out* >&2
                exit 1
            fi
            read -r wall user system <"$tag.time"
            echo "$build $variant $round $wall $user $system $(python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$cpu_before" "$cpu_after")" \
                | tee -a "$results" >&2
        done
    done
done

values() { pg "$1" -c "SELECT md5(string_agg(d::text, ',' ORDER BY d.id)) FROM room_scans_derived d"; }
if [ "$(values new)" != "$(values base)" ]; then
    echo "the two builds' databases hold different derived values" >&2
    exit 1
fi

python3 - "$results" "$records" "$parallel" "$load_before" "${bin[new]}" "${bin[base]}" <<'PY'
import os, statistics, sys
path, records, parallel, load_before, new, base = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
runs = {}
for line in open(path):
    build, variant, round_, wall, user, system, server = line.split()
    runs.setdefault((build, variant), {})[int(round_)] = (float(wall), float(user) + float(system), float(server))
rounds = sorted(runs[("new", "same")])
ms = lambda seconds: seconds * 1000 / records
print(f"\n{records:,} generated records, two workers `run --parallel {parallel}`, median of {len(rounds)} interleaved rounds; "
      f"{os.cpu_count()} cores, load average {load_before} before / {os.getloadavg()[0]:.2f} after; "
      f"new = {new}, base = {base}; the derived values of both are equal\n")
print("| bump of wall_metrics | build | wall s | worker CPU ms/record | server CPU ms/record | server CPU, base / new (by round) |")
print("|---|---|---:|---:|---:|---|")
label = {"same": "no value changes", "half": "half the values change"}
for variant in ("same", "half"):
    for build in ("base", "new"):
        wall, worker, server = (statistics.median(runs[(build, variant)][r][i] for r in rounds) for i in range(3))
        ratios = ""
        if build == "new":
            pairs = [runs[("base", variant)][r][2] / runs[("new", variant)][r][2] for r in rounds]
            ratios = f"{', '.join(f'{p:.2f}' for p in pairs)} (median {statistics.median(pairs):.2f})"
        print(f"| {label[variant]} | {build} | {wall:.3f} | {ms(worker):.3f} | **{ms(server):.3f}** | {ratios} |")
PY
