#!/usr/bin/env bash
# Import throughput: bash Benchmarks/import.sh
#
# Builds rederive in release mode, copies the 13 real RoomPlan exports of Tests/RoomScanTests/Fixtures
# to a corpus of a few thousand files under .build-bench/import-corpus/, then imports it into a fresh
# database, side by side in interleaved rounds: libdeflate and zlib only (REDERIVE_LIBDEFLATE=0), on
# every core and on one worker, libdeflate at `--level 1`, and the floor: only compressing as many files
# on every core. Prints per variant the median records/s and cores used (CPU s / wall s), and the
# ratios between them.
#
# Environment: IMPORT_COPIES (250 copies of the 13 exports: 3,250 files), IMPORT_ROUNDS (3),
# BENCH_DIR (.build-bench).
set -euo pipefail
cd "$(dirname "$0")/.."
export BENCH_DIR="${BENCH_DIR:-$PWD/.build-bench}"
copies="${IMPORT_COPIES:-250}"
rounds="${IMPORT_ROUNDS:-3}"
mkdir -p "$BENCH_DIR"

if [ ! -x /usr/bin/time ]; then
    if [ "$(id -u)" = 0 ]; then apt-get install -y -qq time >/dev/null; else echo "install GNU time (apt install time)" >&2; exit 1; fi
fi

swift build -c release --product rederive
rederive="$(swift build -c release --show-bin-path)/rederive"
"$rederive" --version

corpus="$BENCH_DIR/import-corpus-$copies"
if [ ! -d "$corpus" ]; then
    mkdir -p "$corpus.tmp"
    for copy in $(seq -w 1 "$copies"); do
        for export in Tests/RoomScanTests/Fixtures/roomplan/*.json; do
            cp "$export" "$corpus.tmp/$copy-$(basename "$export")"
        done
    done
    mv "$corpus.tmp" "$corpus"
fi
files=$(find "$corpus" -name '*.json' | wc -l)
echo "corpus: $files files, $(du -sm "$corpus" | cut -f1) MB of JSON"

results="$BENCH_DIR/import-results.txt"
: >"$results"
cores=$(nproc)
for round in $(seq 1 "$rounds"); do
    for variant in libdeflate zlib libdeflate-1 zlib-1 libdeflate-level1 floor-libdeflate floor-zlib; do
        if [[ $variant == floor-* ]]; then
            # The floor: only compressing as many files, from memory, on every core (Benchmarks/compress_floor.py).
            /usr/bin/time -f "%e %U %S" -o "$BENCH_DIR/import-time.txt" \
                python3 Benchmarks/compress_floor.py "${variant#floor-}" "$cores" "$files"
            read -r wall user system <"$BENCH_DIR/import-time.txt"
            echo "$variant $wall $user $system" | tee -a "$results"
            continue
        fi
        database="$BENCH_DIR/import-$variant.sqlite"
        rm -f "$database" "$database-wal" "$database-shm"
        case $variant in zlib*) switch=0 ;; *) switch=1 ;; esac
        case $variant in *-1) parallel=1 ;; *) parallel=$cores ;; esac
        case $variant in *-level1) level=1 ;; *) level=6 ;; esac
        # Elapsed, user and system seconds of the import alone; the database is created beforehand.
        "$rederive" status --db "$database" >/dev/null 2>&1 || true
        # The previous variant's database is still being written back by the kernel; let it finish first.
        sync
        REDERIVE_LIBDEFLATE=$switch /usr/bin/time -f "%e %U %S" -o "$BENCH_DIR/import-time.txt" \
            "$rederive" import --db "$database" --parallel "$parallel" --level "$level" "$corpus" >/dev/null
        read -r wall user system <"$BENCH_DIR/import-time.txt"
        echo "$variant $wall $user $system" | tee -a "$results"
    done
done

python3 - "$results" "$files" "$cores" <<'PY'
import statistics, sys
path, files, cores = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
runs = {}
for line in open(path):
    variant, wall, user, system = line.split()
    runs.setdefault(variant, []).append((float(wall), float(user) + float(system)))
rate = {}
print(f"\nimport of {files} files (median of {len(next(iter(runs.values())))} rounds):")
print(f"{'variant':<40}{'records/s':>10}{'wall s':>9}{'cores used':>12}{'CPU ms/file':>13}")
for variant, samples in runs.items():
    wall = statistics.median(w for w, _ in samples)
    used = statistics.median(c / w for w, c in samples)
    per_file = statistics.median(c for _, c in samples) / files * 1000
    rate[variant] = files / wall
    library = "libdeflate" if "libdeflate" in variant else "zlib only"
    if variant.startswith("floor-"):
        name = f"floor: compress only, {library}, {cores} threads"
    else:
        name = f"import, {library}, " + ("1 worker" if variant.endswith("-1") else f"{cores} workers")
        name += ", level 1" if variant.endswith("-level1") else ""
    print(f"{name:<40}{rate[variant]:>10,.0f}{wall:>9.2f}{used:>12.2f}{per_file:>13.2f}")
print()
print(f"libdeflate / zlib only, {cores} workers: {rate['libdeflate'] / rate['zlib']:.2f}x")
print(f"libdeflate / zlib only, 1 worker:  {rate['libdeflate-1'] / rate['zlib-1']:.2f}x")
print(f"{cores} workers / 1 worker, libdeflate: {rate['libdeflate'] / rate['libdeflate-1']:.2f}x")
print(f"{cores} workers / 1 worker, zlib only:  {rate['zlib'] / rate['zlib-1']:.2f}x")
print(f"import / floor, libdeflate: {rate['libdeflate'] / rate['floor-libdeflate']:.2f}x")
print(f"import / floor, zlib only:  {rate['zlib'] / rate['floor-zlib']:.2f}x")
print(f"level 1 / level 6, libdeflate, {cores} workers: {rate['libdeflate-level1'] / rate['libdeflate']:.2f}x")
PY
