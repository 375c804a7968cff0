#!/usr/bin/env bash
# What issue 40's bump costs the PostgreSQL server under other statement flows, without building them:
#
#     REDERIVE_BIN=path/to/rederive bash Benchmarks/postgres-statement-flows.sh [FLOW ...]
#
# A throwaway cluster (Benchmarks/postgres-cluster.sh) holds FLOWS_RECORDS records of `rederive
# generate --seed 40`, derived once with projections by REDERIVE_BIN (a build with the PostgreSQL
# trait). Then Benchmarks/postgres-statement-flows.py bumps `wall_metrics` FLOWS_ROUNDS times per flow,
# interleaved, issuing each flow's statements from FLOWS_WORKERS threads, and prints the server's CPU
# per record (its docstring names the flows). Needs psycopg 3: pip install "psycopg[binary]".
#
# Environment: REDERIVE_BIN (required), FLOWS_RECORDS (5000), FLOWS_ROUNDS (6), FLOWS_WORKERS (2), POSTGRES_BIN
# (/usr/lib/postgresql/15/bin).
set -euo pipefail
cd "$(dirname "$0")/.."
records="${FLOWS_RECORDS:-5000}"
rounds="${FLOWS_ROUNDS:-6}"
workers="${FLOWS_WORKERS:-2}"
pgbin="${POSTGRES_BIN:-/usr/lib/postgresql/15/bin}"
if [ -z "${REDERIVE_BIN:-}" ]; then
    echo "set REDERIVE_BIN to a rederive build with the PostgreSQL trait" >&2
    exit 2
fi
if [ "$records" -lt 128 ] || [ "$records" -gt 1000000 ] || [ "$rounds" -lt 1 ] || [ "$rounds" -gt 50 ]; then
    echo "FLOWS_RECORDS must be 128 to 1,000,000 and FLOWS_ROUNDS 1 to 50" >&2
    exit 2
fi
if ! python3 -c "import psycopg" 2>/dev/null; then
    echo "needs psycopg 3: pip install \"psycopg[binary]\"" >&2
    exit 2
fi
source Benchmarks/postgres-cluster.sh
start_cluster pgflows
url="postgres://postgres@127.0.0.1:$port/bench?sslmode=disable"
"$pgbin/psql" -h 127.0.0.1 -p "$port" -U postgres -X -q -d postgres -c "CREATE DATABASE bench"
"$REDERIVE_BIN" generate --db "$url" --count "$records" --seed 40 >&2
"$REDERIVE_BIN" run --db "$url" --parallel 2 --progress none >&2
python3 Benchmarks/postgres-statement-flows.py --port "$port" --postmaster "$postmaster" --records "$records" \
    --rounds "$rounds" --workers "$workers" "$@"
