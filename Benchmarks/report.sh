#!/usr/bin/env bash
# What making the dry run's HTML report costs: `run --dry-run --report` against the same dry run
# without it, side by side (A B A B ...), on a generated corpus whose stored values an older logic
# wrote (every record stale, floor areas, wall counts and section labels changing).
#
#   bash Benchmarks/report.sh          knobs: BENCH_RECORDS (20000), BENCH_ROUNDS (8)
#
# Needs farm-bench or hyperfine. The database is cached in .build-bench/ (delete it to rebuild).
set -euo pipefail
cd "$(dirname "$0")/.."
records=${BENCH_RECORDS:-20000}
rounds=${BENCH_ROUNDS:-8}
swift build -c release --product rederive
rederive=$PWD/.build/release/rederive
mkdir -p .build-bench
db=.build-bench/report-$records.sqlite
if [ ! -f "$db" ]; then
    "$rederive" generate --db "$db.tmp" --count "$records" --corrupt 0.02 >/dev/null
    "$rederive" run --db "$db.tmp" --progress none >/dev/null || [ $? -eq 3 ]
    python3 .ci/report-older-values.py "$db.tmp"
    "$rederive" invalidate --db "$db.tmp" >/dev/null
    mv "$db.tmp" "$db"
fi
with="$rederive run --db $db --dry-run --parallel 2 --report .build-bench/dry-run.html"
without="$rederive run --db $db --dry-run --parallel 2"
if command -v farm-bench >/dev/null; then
    farm-bench -n "$rounds" --warmup 1 --timeout 3600 --vs "$without" -- $with
else
    hyperfine --warmup 1 --runs "$rounds" "$with" "$without"
fi
