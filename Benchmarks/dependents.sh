#!/usr/bin/env bash
# A bump of a dependent processor against a bump that inflates: bash Benchmarks/dependents.sh
#
# Builds rederive in release mode and, once (cached under .build-bench/), a fully derived database per
# corpus: the 13 real RoomPlan exports of Tests/RoomScanTests/Fixtures copied into a corpus (the same
# directory as Benchmarks/import.sh) and imported, and a `rederive generate` corpus. Each round takes a
# fresh copy of the derived database per variant, simulates a logic-version bump with
# `rederive invalidate --processor NAME` (not timed), then times `rederive run --parallel 2` alone:
#   dependent   room_type: derives from stored values only, so no payload is read or inflated;
#   inflating   element_counts: reads its payload, no dependents: every payload is read and inflated;
#   input       floor_area: inflates, and room_type follows as a cascade candidate (values equal, so
#               room_type does not derive again).
#   none        nothing invalidated: a run with nothing stale, the fixed cost of starting a run.
# The variants run interleaved, round by round, so that the machine's load hits them alike. Each run
# must have handled every record (none: no record), none failed. Wall and CPU seconds (user + sys of
# the process) come from bash's `time`, to the millisecond. With strace installed, one more run of each variant
# counts the bytes SQLite read (pread64) to show the dependent run reads no payload pages.
#
# Environment: DEPENDENTS_COPIES (270 copies of the 13 exports: 3,510 records; the generated corpus
# has as many), DEPENDENTS_ROUNDS (7), DEPENDENTS_CORPORA (exports,generate), DEPENDENTS_PARALLEL (2),
# BENCH_DIR (.build-bench). Delete .build-bench/dependents-*.sqlite to rebuild the databases.
set -euo pipefail
cd "$(dirname "$0")/.."
export BENCH_DIR="${BENCH_DIR:-$PWD/.build-bench}"
copies="${DEPENDENTS_COPIES:-270}"
rounds="${DEPENDENTS_ROUNDS:-7}"
corpora="${DEPENDENTS_CORPORA:-exports,generate}"
parallel="${DEPENDENTS_PARALLEL:-2}"
mkdir -p "$BENCH_DIR"

swift build -c release --product rederive
rederive="$(swift build -c release --show-bin-path)/rederive"
"$rederive" --version
records=$((copies * 13))

# Copies a checkpointed database to $2 without stale WAL files, and flushes the copy to disk: otherwise
# the first fsync of the database (a checkpoint) would write back the whole copy within the timed run.
fresh() {
    rm -f "$2" "$2-wal" "$2-shm"
    cp "$1" "$2"
    sync "$2"
}

# Folds the WAL into the database file, so that a byte copy of the file is the whole database.
checkpoint() {
    python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()' "$1"
    rm -f "$1-wal" "$1-shm"
}

# Builds (once) the fully derived database of corpus $1 and prints its path.
derived_database() {
    local corpus=$1 database="$BENCH_DIR/dependents-$1-$records-derived.sqlite"
    if [ ! -f "$database" ]; then
        local building="$database.building"
        rm -f "$building" "$building-wal" "$building-shm"
        if [ "$corpus" = exports ]; then
            local files="$BENCH_DIR/import-corpus-$copies"
            if [ ! -d "$files" ]; then
                mkdir -p "$files.tmp"
                for copy in $(seq -w 1 "$copies"); do
                    for export in Tests/RoomScanTests/Fixtures/roomplan/*.json; do
                        cp "$export" "$files.tmp/$copy-$(basename "$export")"
                    done
                done
                mv "$files.tmp" "$files"
            fi
            "$rederive" import --db "$building" "$files" >&2
        else
            "$rederive" generate --db "$building" --count "$records" >&2
        fi
        "$rederive" run --db "$building" --parallel "$parallel" --progress none >&2
        checkpoint "$building"
        mv "$building" "$database"
    fi
    echo "$database"
}

processor_of() {
    case $1 in dependent) echo room_type ;; inflating) echo element_counts ;; input) echo floor_area ;; none) ;; esac
}

# Marks every record of the fresh copy stale for the variant's processor, as a version bump would.
bump() {
    local processor
    processor=$(processor_of "$1")
    if [ -n "$processor" ]; then "$rederive" invalidate --db "$work" --processor "$processor" >/dev/null; fi
}

results="$BENCH_DIR/dependents-results.txt"
: >"$results"
load_before=$(cut -d' ' -f1 /proc/loadavg)
work="$BENCH_DIR/dependents-work.sqlite"
IFS=, read -r -a corpus_list <<<"$corpora"
for corpus in "${corpus_list[@]}"; do
    base=$(derived_database "$corpus")
    echo "$corpus: $base, $(du -m "$base" | cut -f1) MB" >&2
    for round in $(seq 1 "$rounds"); do
        for variant in dependent inflating input none; do
            fresh "$base" "$work"
            bump "$variant"
            # Elapsed, user and system seconds of the run alone, and what it says it handled.
            TIMEFORMAT='%3R %3U %3S'
            { time "$rederive" run --db "$work" --parallel "$parallel" --progress none \
                >"$BENCH_DIR/dependents-run.txt" 2>&1; } 2>"$BENCH_DIR/dependents-time.txt"
            read -r wall user system <"$BENCH_DIR/dependents-time.txt"
            summary=$(grep -E "^run [0-9]+ " "$BENCH_DIR/dependents-run.txt" || cat "$BENCH_DIR/dependents-run.txt")
            # "run N completed: D derived, U unchanged, F failed in ..."
            handled=$(sed -E 's/.*: ([0-9,]+) derived, ([0-9,]+) unchanged, ([0-9,]+) failed.*/\1 \2 \3/; s/,//g' <<<"$summary")
            read -r derived unchanged failed <<<"$handled"
            expected=$records
            if [ "$variant" = none ]; then expected=0; fi
            if [ $((derived + unchanged)) -ne "$expected" ] || [ "$failed" -ne 0 ]; then
                echo "$corpus $variant: expected $expected records handled, none failed; the run said: $summary" >&2
                exit 1
            fi
            echo "$corpus $variant $wall $user $system $derived $unchanged" | tee -a "$results" >&2
        done
    done
    if command -v strace >/dev/null; then
        for variant in dependent inflating; do
            fresh "$base" "$work"
            bump "$variant"
            strace -f -qq -e trace=pread64 -e signal=none -o "$BENCH_DIR/dependents-strace.txt" \
                "$rederive" run --db "$work" --parallel "$parallel" --progress none >/dev/null
            bytes=$(awk '/pread64\(/ { n = $NF; if (n ~ /^[0-9]+$/) sum += n } END { print sum + 0 }' "$BENCH_DIR/dependents-strace.txt")
            echo "$corpus $variant read $bytes" | tee -a "$results" >&2
        done
    fi
done

python3 - "$results" "$records" "$parallel" "$(git rev-parse --short HEAD)" "$load_before" <<'PY'
import os, statistics, sys
path, records, parallel, commit, load_before = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
runs, reads = {}, {}
for line in open(path):
    fields = line.split()
    if fields[2] == "read":
        reads[(fields[0], fields[1])] = int(fields[3])
        continue
    corpus, variant, wall, user, system = fields[:5]
    runs.setdefault(corpus, {}).setdefault(variant, []).append((float(wall), float(user) + float(system)))
label = {"dependent": "bump room_type (dependent: reads no payload)",
         "inflating": "bump element_counts (reads and inflates every payload)",
         "input": "bump floor_area (inflates; room_type a cascade candidate)",
         "none": "nothing stale (starting a run)"}
print(f"\ncommit {commit}, {records:,} records per corpus, `rederive run --parallel {parallel} --progress none`, "
      f"median of {len(next(iter(next(iter(runs.values())).values())))} interleaved rounds; {os.cpu_count()} cores, "
      f"load average {load_before} before / {os.getloadavg()[0]:.2f} after\n")
print("| corpus | variant | median wall s | records/s | median CPU s | SQLite pread64 MB |")
print("|---|---|---:|---:|---:|---:|")
for corpus, variants in runs.items():
    for variant, samples in variants.items():
        wall = statistics.median(w for w, _ in samples)
        cpu = statistics.median(c for _, c in samples)
        read = reads.get((corpus, variant))
        read = f"{read / 1e6:.1f}" if read is not None else ""
        rate = f"{records / wall:,.0f}" if variant != "none" else ""
        print(f"| {corpus} | {label[variant]} | {wall:.3f} | {rate} | {cpu:.2f} | {read} |")
print("\n| ratio (target ≥ 10) | corpus | of medians, wall | of pairs, wall: median (min–max) | of medians, CPU "
      "| of medians, wall, less the run with nothing stale |")
print("|---|---|---:|---:|---:|---:|")
for corpus, variants in runs.items():
    dependent = variants["dependent"]
    for slower in ("inflating", "input"):
        other = variants[slower]
        pairs = [o[0] / d[0] for o, d in zip(other, dependent)]
        walls = statistics.median(w for w, _ in other) / statistics.median(w for w, _ in dependent)
        cpus = statistics.median(c for _, c in other) / statistics.median(c for _, c in dependent)
        start = statistics.median(w for w, _ in variants["none"])
        beyond = (statistics.median(w for w, _ in other) - start) / (statistics.median(w for w, _ in dependent) - start)
        print(f"| {slower} / dependent | {corpus} | {walls:.1f} | {statistics.median(pairs):.1f} "
              f"({min(pairs):.1f}–{max(pairs):.1f}) | {cpus:.1f} | {beyond:.1f} |")
PY
