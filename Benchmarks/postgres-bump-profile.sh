#!/usr/bin/env bash
# Where the server's time goes in issue 40's bump: the statements of one build, per record.
#
#     REDERIVE_BIN=path/to/rederive bash Benchmarks/postgres-bump-profile.sh
#
# The build needs the PostgreSQL trait. A throwaway cluster (Benchmarks/postgres-cluster.sh) with
# pg_stat_statements tracking every statement, those of trigger functions included, holds
# PROFILE_RECORDS records of `rederive generate --seed 40`, derived once, untimed (projections written).
# Then, per variant, as postgres-bump.sh runs it: `invalidate --processor wall_metrics`, VACUUM
# ANALYZE, the statistics reset, and two workers `run --parallel PROFILE_PARALLEL` sharing the run.
# Printed per variant: the server's CPU per record (utime + stime of every postgres process), and the
# statements by total execution time, in µs per record, with their planning time, calls and rows. A
# trigger's statements are listed on their own and are part of the time of the statement that fired
# them; the total line counts top-level statements only. Statement time is not CPU: it includes
# waiting for locks, and leaves out the protocol. A statement planned for each call's parameters (a
# custom plan, as PostgreSQL chooses for most of a claim's) pays its planning every call.
#
# Environment: REDERIVE_BIN (required), PROFILE_RECORDS (5000), PROFILE_PARALLEL (2), PROFILE_TOP (25),
# PROFILE_VARIANTS ("same half"), POSTGRES_BIN (/usr/lib/postgresql/15/bin).
set -euo pipefail
cd "$(dirname "$0")/.."
records="${PROFILE_RECORDS:-5000}"
parallel="${PROFILE_PARALLEL:-2}"
top="${PROFILE_TOP:-25}"
variants="${PROFILE_VARIANTS:-same half}"
pgbin="${POSTGRES_BIN:-/usr/lib/postgresql/15/bin}"
if [ -z "${REDERIVE_BIN:-}" ]; then
    echo "set REDERIVE_BIN to a rederive build with the PostgreSQL trait" >&2
    exit 2
fi
if [ "$records" -lt 2 ] || [ "$records" -gt 2000000 ] || [ "$parallel" -lt 1 ] || [ "$parallel" -gt 64 ] \
    || [ "$top" -lt 1 ] || [ "$top" -gt 200 ]; then
    echo "PROFILE_RECORDS must be 2 to 2,000,000, PROFILE_PARALLEL 1 to 64, PROFILE_TOP 1 to 200" >&2
    exit 2
fi
for variant in $variants; do
    case "$variant" in same | half) ;; *) echo "PROFILE_VARIANTS holds same and half only" >&2; exit 2 ;; esac
done
echo "$("$REDERIVE_BIN" --version | head -1) ($REDERIVE_BIN)"

source Benchmarks/postgres-cluster.sh
source Benchmarks/postgres-bump-variant.sh
start_cluster pgprofile "shared_preload_libraries = 'pg_stat_statements'" "pg_stat_statements.track = all" \
    "pg_stat_statements.track_planning = on"
url="postgres://postgres@127.0.0.1:$port/bench?sslmode=disable"
pg() { "$pgbin/psql" -h 127.0.0.1 -p "$port" -U postgres -X -v ON_ERROR_STOP=1 -A -t -q -F ' | ' -d bench "$@"; }
"$pgbin/psql" -h 127.0.0.1 -p "$port" -U postgres -X -q -d postgres -c "CREATE DATABASE bench"
pg -c "CREATE EXTENSION pg_stat_statements"
"$REDERIVE_BIN" generate --db "$url" --count "$records" --seed 40 >&2
"$REDERIVE_BIN" run --db "$url" --parallel "$parallel" --progress none >&2
# The workers' output, deleted with the cluster.
work="$cluster/workers"
mkdir -p "$work"

for variant in $variants; do
    prepare_bump "$variant" "$url" "$REDERIVE_BIN" >/dev/null
    pg -c "SELECT pg_stat_statements_reset()" >/dev/null
    cpu_before=$(server_cpu)
    time_workers "$work/$variant" 2 "$REDERIVE_BIN" run --db "$url" --parallel "$parallel" --progress none
    quiesce
    cpu_after=$(server_cpu)
    echo
    echo "## $variant: $records records, server CPU $(python3 -c "import sys; b, a, n = map(float, sys.argv[1:]); print(f'{a - b:.2f} s, {(a - b) * 1000 / n:.3f} ms/record')" "$cpu_before" "$cpu_after" "$records")"
    echo
    echo "| µs/record | planning µs/record | calls | rows | statement |"
    echo "|---:|---:|---:|---:|---|"
    pg -c "SELECT '| ' || round((total_exec_time * 1000 / $records)::numeric, 1) || ' | '
               || round((total_plan_time * 1000 / $records)::numeric, 1) || ' | ' || calls || ' | ' || rows || ' | \`'
               || left(regexp_replace(query, '\s+', ' ', 'g'), 140) || '\` |'
           FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = 'bench')
           AND query !~ 'pg_stat_statements_reset'
           ORDER BY total_exec_time DESC LIMIT $top"
    pg -c "SELECT '| **' || round((sum(total_exec_time) * 1000 / $records)::numeric, 1) || '** | **'
               || round((sum(total_plan_time) * 1000 / $records)::numeric, 1) || '** | ' || sum(calls) || ' | | top-level statements in all |'
           FROM pg_stat_statements WHERE toplevel AND dbid = (SELECT oid FROM pg_database WHERE datname = 'bench')"
done
