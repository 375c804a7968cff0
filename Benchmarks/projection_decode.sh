#!/usr/bin/env bash
# Measures the candidate encodings of RoomScan's projection: bash Benchmarks/projection_decode.sh
#
# Compiles Benchmarks/ProjectionDecode with RoomScan's codec and RederiveJSON in release mode with
# swiftc alone (seconds, not a package build), then decodes every real export's room in each
# encoding, best of ROUNDS (3) rounds of at least 200 ms, on one thread. Prints a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${BENCH_DIR:-$PWD/.build-bench}/projection-decode"
mkdir -p "$out"
swiftc -O -wmo -parse-as-library -emit-module -emit-library -static -module-name RederiveJSON -package-name rederive \
    -emit-module-path "$out/RederiveJSON.swiftmodule" -o "$out/libRederiveJSON.a" Sources/RederiveJSON/*.swift
swiftc -O -wmo -package-name rederive -I "$out" -I Sources/CZlib -L "$out" -lRederiveJSON -o "$out/projection-decode" \
    $(ls Pipelines/RoomScan/*.swift | grep -v -e RoomScan.swift) Benchmarks/ProjectionDecode/main.swift
"$out/projection-decode" "${ROUNDS:-3}" Tests/RoomScanTests/Fixtures/roomplan/*.json
