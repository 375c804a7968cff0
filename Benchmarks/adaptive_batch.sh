#!/usr/bin/env bash
# Batches sized toward a target duration (issue 27): bash Benchmarks/adaptive_batch.sh
#
# Builds and runs Benchmarks/AdaptiveBatch (release unless BENCH_CONFIGURATION=debug): one run whose
# batch size converges, shrinks while another connection holds SQLite's write lock, and grows back;
# then, side by side, how long another program's writes wait while a run commits fixed and sized
# batches. Environment: see Benchmarks/AdaptiveBatch/main.swift.
set -euo pipefail
cd "$(dirname "$0")/.."
configuration="${BENCH_CONFIGURATION:-release}"
swift build -c "$configuration" --product rederive-adaptive-batch
export BENCH_DIR="${BENCH_DIR:-$PWD/.build-bench}"
mkdir -p "$BENCH_DIR"
"$(swift build -c "$configuration" --show-bin-path)/rederive-adaptive-batch"
