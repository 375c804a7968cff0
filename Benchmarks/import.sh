#!/usr/bin/env bash
# Import throughput: bash Benchmarks/import.sh
#
# Builds rederive in release mode, copies the 13 real RoomPlan exports of Tests/RoomScanTests/Fixtures
# to a corpus of a few thousand files under .build-bench/import-corpus/, then imports it into a fresh
# database, side by side in interleaved rounds: libdeflate and zlib only (REDERIVE_LIBDEFLATE=0), on
# every core and on one worker; then the floor: only compressing the same files on every core. Prints per
# variant the median records/s and cores used (CPU s / wall s), and the ratios between them.
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
    for variant in libdeflate zlib libdeflate-1 zlib-1; do
        database="$BENCH_DIR/import-$variant.sqlite"
        rm -f "$database" "$database-wal" "$database-shm"
        case $variant in zlib*) switch=0 ;; *) switch=1 ;; esac
        case $variant in *-1) parallel=1 ;; *) parallel=$cores ;; esac
        # Elapsed, user and system seconds of the import alone; the database is created beforehand.
        "$rederive" status --db "$database" >/dev/null 2>&1 || true
        REDERIVE_LIBDEFLATE=$switch /usr/bin/time -f "%e %U %S" -o "$BENCH_DIR/import-time.txt" \
            "$rederive" import --db "$database" --parallel "$parallel" "$corpus" >/dev/null
        read -r wall user system <"$BENCH_DIR/import-time.txt"
        echo "$variant $wall $user $system" | tee -a "$results"
    done
done

# The floor: only compressing the 13 exports (held in memory) on every core, with libdeflate through
# ctypes and with Python's zlib, both at level 6 and both releasing the GIL while they work.
python3 - "$cores" "$files" >"$BENCH_DIR/import-floor.txt" <<'PY'
import ctypes, glob, sys, threading, time, zlib
cores, files = int(sys.argv[1]), int(sys.argv[2])
exports = [open(f, "rb").read() for f in sorted(glob.glob("Tests/RoomScanTests/Fixtures/roomplan/*.json"))]
try:
    lib = ctypes.CDLL("libdeflate.so.0")
    lib.libdeflate_alloc_compressor.restype = ctypes.c_void_p
    lib.libdeflate_zlib_compress.restype = ctypes.c_size_t
    lib.libdeflate_zlib_compress.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t]
except OSError:
    lib = None

def libdeflate_worker(count):
    compressor, out = lib.libdeflate_alloc_compressor(6), ctypes.create_string_buffer(1 << 21)
    for index in range(count):
        data = exports[index % len(exports)]
        lib.libdeflate_zlib_compress(compressor, data, len(data), out, len(out))

def zlib_worker(count):
    for index in range(count):
        zlib.compress(exports[index % len(exports)], 6)

for name, worker in [("libdeflate", libdeflate_worker), ("zlib", zlib_worker)]:
    if worker is libdeflate_worker and lib is None:
        continue
    share = files // cores
    threads = [threading.Thread(target=worker, args=(share,)) for _ in range(cores)]
    start = time.perf_counter()
    for thread in threads: thread.start()
    for thread in threads: thread.join()
    print(name, share * cores / (time.perf_counter() - start))
PY
cat "$BENCH_DIR/import-floor.txt"

python3 - "$results" "$files" "$cores" "$BENCH_DIR/import-floor.txt" <<'PY'
import statistics, sys
path, files, cores = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
floor = dict((name, float(rate)) for name, rate in (line.split() for line in open(sys.argv[4])))
runs = {}
for line in open(path):
    variant, wall, user, system = line.split()
    runs.setdefault(variant, []).append((float(wall), float(user) + float(system)))
rate = {}
print(f"\nimport of {files} files (median of {len(next(iter(runs.values())))} rounds):")
print(f"{'variant':<22}{'records/s':>10}{'wall s':>9}{'cores used':>12}")
for variant, samples in runs.items():
    wall = statistics.median(w for w, _ in samples)
    cpu = statistics.median(c / w for w, c in samples)
    rate[variant] = files / wall
    workers = "1 worker" if variant.endswith("-1") else f"{cores} workers"
    name = ("libdeflate" if variant.startswith("libdeflate") else "zlib only") + f", {workers}"
    print(f"{name:<22}{rate[variant]:>10,.0f}{wall:>9.2f}{cpu:>12.2f}")
print()
print(f"libdeflate / zlib only, {cores} workers: {rate['libdeflate'] / rate['zlib']:.2f}x")
print(f"libdeflate / zlib only, 1 worker:  {rate['libdeflate-1'] / rate['zlib-1']:.2f}x")
print(f"{cores} workers / 1 worker, libdeflate: {rate['libdeflate'] / rate['libdeflate-1']:.2f}x")
print(f"{cores} workers / 1 worker, zlib only:  {rate['zlib'] / rate['zlib-1']:.2f}x")
for library, variant in [("libdeflate", "libdeflate"), ("zlib", "zlib")]:
    if library in floor:
        print(f"compress-only floor, {library}, {cores} threads: {floor[library]:,.0f} files/s; "
              f"import reaches {rate[variant] / floor[library]:.2f}x of it")
PY
