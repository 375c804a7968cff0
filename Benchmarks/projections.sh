#!/usr/bin/env bash
# A bump of a payload processor on projections, side by side: bash Benchmarks/projections.sh
#
# Builds rederive and rederive-floor in release mode and, once (cached under .build-bench/), a database
# of PROJECTIONS_RECORDS (10,010) records: the 13 real RoomPlan exports round-robin, zlib level 6
# (Benchmarks/make_db.py), derived once with projections. Each round, interleaved, on a fresh copy:
#   projection  invalidate --processor wall_metrics, then `rederive run`: derives from the projections
#   payload     the same bump with `run --no-projection`: reads and inflates every payload (and writes
#               every projection again, as that flag does)
#   dependent   invalidate --processor room_type, then `rederive run`: reads no payload (issue 12)
#   floor       `rederive-floor inflate DB PARALLEL`: only reads and inflates every payload
#   projection-fixed, payload-fixed, dependent-fixed
#               the same three runs with `--batch-size 500`, the fixed size that was the default before
#               batches were sized toward a target duration (not in the default list)
# and the first derivation of the underived database, with and without projections
# (`rederive-floor run DB companion PARALLEL [noprojection]`), with the bytes each leaves in the file.
# Wall and CPU seconds (user + sys) from bash's `time`.
#
# Environment: PROJECTIONS_RECORDS (10010), PROJECTIONS_ROUNDS (3), PROJECTIONS_PARALLEL (2), BENCH_DIR, and
# PROJECTIONS_VARIANTS (all six: "projection payload dependent floor first first-without") to time fewer,
# for more rounds of a ratio in the same time.
set -euo pipefail
cd "$(dirname "$0")/.."
export BENCH_DIR="${BENCH_DIR:-$PWD/.build-bench}"
records="${PROJECTIONS_RECORDS:-10010}"
rounds="${PROJECTIONS_ROUNDS:-3}"
parallel="${PROJECTIONS_PARALLEL:-2}"
read -r -a variants <<<"${PROJECTIONS_VARIANTS:-projection payload dependent floor first first-without}"
mkdir -p "$BENCH_DIR"

swift build -c release --product rederive
swift build -c release --product rederive-floor
bin="$(swift build -c release --show-bin-path)"
rederive="$bin/rederive"
floor="$bin/rederive-floor"

fresh() {
    rm -f "$2" "$2-wal" "$2-shm"
    cp "$1" "$2"
    sync "$2"
}

checkpoint() {
    python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()' "$1"
    rm -f "$1-wal" "$1-shm"
}

underived="$BENCH_DIR/projections-$records-underived.sqlite"
derived="$BENCH_DIR/projections-$records-derived.sqlite"
if [ ! -f "$underived" ]; then
    rm -f "$underived.building"*
    "$floor" prepare "$underived.building" companion
    python3 Benchmarks/make_db.py exports "$underived.building" "$records"
    checkpoint "$underived.building"
    mv "$underived.building" "$underived"
fi
if [ ! -f "$derived" ]; then
    fresh "$underived" "$derived.building"
    "$rederive" run --db "$derived.building" --parallel "$parallel" --progress none >&2
    checkpoint "$derived.building"
    mv "$derived.building" "$derived"
fi

results="$BENCH_DIR/projections-results.txt"
: >"$results"
load_before=$(cut -d' ' -f1 /proc/loadavg)
work="$BENCH_DIR/projections-work.sqlite"
TIMEFORMAT='%3R %3U %3S'
timed() {  # variant, command...: times the command, checks it, records wall, CPU and its summary
    local variant=$1; shift
    { time "$@" >"$BENCH_DIR/projections-run.txt" 2>&1; } 2>"$BENCH_DIR/projections-time.txt"
    read -r wall user system <"$BENCH_DIR/projections-time.txt"
    echo "$variant $wall $user $system | $(tr '\n' ' ' <"$BENCH_DIR/projections-run.txt")" | tee -a "$results" >&2
}
for round in $(seq 1 "$rounds"); do
    for variant in "${variants[@]}"; do
        case $variant in
        projection | payload | projection-fixed | payload-fixed)
            fresh "$derived" "$work"
            "$rederive" invalidate --db "$work" --processor wall_metrics >/dev/null
            flags=()
            case $variant in payload*) flags+=(--no-projection) ;; esac
            case $variant in *-fixed) flags+=(--batch-size 500) ;; esac
            timed "$variant" "$rederive" run --db "$work" --parallel "$parallel" --progress none "${flags[@]}" ;;
        dependent | dependent-fixed)
            fresh "$derived" "$work"
            "$rederive" invalidate --db "$work" --processor room_type >/dev/null
            flags=()
            if [ "$variant" = dependent-fixed ]; then flags=(--batch-size 500); fi
            timed "$variant" "$rederive" run --db "$work" --parallel "$parallel" --progress none "${flags[@]}" ;;
        floor)
            fresh "$derived" "$work"
            timed "$variant" "$floor" inflate "$work" "$parallel" ;;
        first | first-without)
            fresh "$underived" "$work"
            extra=()
            if [ "$variant" = first-without ]; then extra=(noprojection); fi
            timed "$variant" "$floor" run "$work" companion "$parallel" "${extra[@]}"
            checkpoint "$work"
            echo "$variant bytes $(stat -c %s "$work") $(sqlite3 "$work" "SELECT coalesce(sum(length(bytes)), 0) FROM rederive_projections") $(sqlite3 "$work" "SELECT sum(length(payload)) FROM room_scans")" | tee -a "$results" >&2 ;;
        esac
    done
done

python3 - "$results" "$records" "$parallel" "$(git rev-parse --short HEAD)" "$load_before" <<'PY'
import os, statistics, sys
path, records, parallel, commit, load_before = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
runs, sizes = {}, {}
for line in open(path):
    fields = line.split()
    if fields[1] == "bytes":
        sizes[fields[0]] = tuple(int(f) for f in fields[2:5])
        continue
    runs.setdefault(fields[0], []).append((float(fields[1]), float(fields[2]) + float(fields[3])))
label = {
    "projection": "bump wall_metrics, from projections (`run`)",
    "payload": "bump wall_metrics, from payloads (`run --no-projection`)",
    "dependent": "bump room_type (dependent, reads no payload)",
    "floor": "C read + inflate floor (`rederive-floor inflate`)",
    "projection-fixed": "bump wall_metrics, from projections, `--batch-size 500`",
    "payload-fixed": "bump wall_metrics, from payloads, `--batch-size 500`",
    "dependent-fixed": "bump room_type, `--batch-size 500`",
    "first": "first derivation, writing projections",
    "first-without": "first derivation, pipeline without projection",
}
median = lambda variant, i: statistics.median(sample[i] for sample in runs[variant])
print(f"\ncommit {commit}, {records:,} real-export records, parallel {parallel}, median of {len(next(iter(runs.values())))} "
      f"interleaved rounds; {os.cpu_count()} cores, load average {load_before} before / {os.getloadavg()[0]:.2f} after\n")
print("| variant | median wall s | records/s | median CPU s |")
print("|---|---:|---:|---:|")
for variant in (variant for variant in label if variant in runs):
    print(f"| {label[variant]} | {median(variant, 0):.3f} | {records / median(variant, 0):,.0f} | {median(variant, 1):.2f} |")
print("\n| ratio | target | of medians, wall | of pairs, wall: median (min–max) | of medians, CPU |")
print("|---|---|---:|---:|---:|")
for name, a, b, target in [
    ("projection bump rate / floor rate", "floor", "projection", "≥ 3"),
    ("projection bump time / dependent bump time", "projection", "dependent", "≤ 1.5"),
    ("payload bump time / projection bump time", "payload", "projection", ""),
    ("first derivation with / without projections", "first", "first-without", "≤ 1.10"),
    ("projection bump, sized / fixed 500", "projection", "projection-fixed", ""),
    ("payload bump, sized / fixed 500", "payload", "payload-fixed", ""),
    ("dependent bump, sized / fixed 500", "dependent", "dependent-fixed", ""),
]:
    if a not in runs or b not in runs:
        continue
    # Each round's two runs ran one after the other: their ratio is the least disturbed by the load.
    pairs = [x[0] / y[0] for x, y in zip(runs[a], runs[b])]
    print(f"| {name} | {target} | {median(a, 0) / median(b, 0):.2f} | "
          f"{statistics.median(pairs):.2f} ({min(pairs):.2f}–{max(pairs):.2f}) | {median(a, 1) / median(b, 1):.2f} |")
if "first" in sizes and "first-without" in sizes:
    with_file, projected, payload = sizes["first"]
    without_file = sizes["first-without"][0]
    print(f"\nFirst derivation: the file grows by {(with_file - without_file) / 1e6:.1f} MB with projections "
          f"({projected / 1e6:.1f} MB of projection bytes) against {payload / 1e6:.1f} MB of stored payloads: "
          f"{(with_file - without_file) / payload * 100:.2f} % (target ≤ 10 %).")
PY
