#!/usr/bin/env bash
# One command from a fresh clone: bash Benchmarks/run.sh
#
# Builds rederive and rederive-floor in release mode, installs sqlite-utils into a virtualenv under
# .build-bench/ (git-ignored, like the cached databases there), then runs Benchmarks/bench.py,
# which measures every variant side by side and prints the table and the ratios.
#
# Environment: BENCH_RECORDS (3510), BENCH_ROUNDS (3), BENCH_MILLION (1000000),
# BENCH_RSS_SIZES (10000,100000), BENCH_DIR (.build-bench), BENCH_ONLY (a comma list of variants, such
# as a,a-zlib,c,c-zlib: measure only those, on both corpora, and skip the rest). Delete
# .build-bench/*.sqlite to rebuild the databases (they are keyed by size only).
set -euo pipefail
cd "$(dirname "$0")/.."
export BENCH_DIR="${BENCH_DIR:-$PWD/.build-bench}"
mkdir -p "$BENCH_DIR"

if [ ! -x /usr/bin/time ]; then
    if [ "$(id -u)" = 0 ]; then apt-get install -y -qq time >/dev/null; else echo "install GNU time (apt install time)" >&2; exit 1; fi
fi

swift build -c release --product rederive
swift build -c release --product rederive-floor

if [ ! -x "$BENCH_DIR/venv/bin/sqlite-utils" ]; then
    python3 -m venv "$BENCH_DIR/venv"
    "$BENCH_DIR/venv/bin/pip" install --quiet sqlite-utils
fi
"$BENCH_DIR/venv/bin/sqlite-utils" --version

python3 Benchmarks/bench.py
