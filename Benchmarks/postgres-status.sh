#!/usr/bin/env bash
# `rederive status` on PostgreSQL at a million records, before and after counts were kept, and what
# keeping them costs the commit path: bash Benchmarks/postgres-status.sh
#
# Starts a throwaway PostgreSQL 15 cluster (as user postgres when run as root; stopped and deleted on
# exit) and compares two builds of rederive with the PostgreSQL trait: BEFORE (REDERIVE_BEFORE_BIN, a
# build of 1c9ed46, whose status reads every stamp row) and AFTER (REDERIVE_BIN, this tree). Phases:
#
# 1. check: the synthetic database below, built at STATUS_CHECK_RECORDS records, holds what a real run
#    writes. Its state (derived values, stamp entries but their run, failures but their run and time)
#    is dumped; then every record is invalidated and derived again by AFTER, and the dump must be the
#    same. Also checks that BEFORE's and AFTER's `status --format json` agree.
# 2. status: a database of STATUS_RECORDS records built by BEFORE (version 6), and a copy of it
#    upgraded by AFTER (its first `run`, which counts once, is timed), then STATUS_ROUNDS rounds,
#    interleaved, of BEFORE's `status` on the first and AFTER's on the second: wall seconds of the
#    whole command, as a user waits for it, and the server's milliseconds executing its statements
#    (pg_stat_statements). Their JSON counts must be equal. Before the rounds, the copy gets
#    projections: the empty scan's, written by a real run of AFTER, copied to every record holding its
#    payload (with the count triggers on); the kept projection count must equal a join of every
#    projection to its record, and each round also times that join on the copy, as a579321's `status`
#    ran it (server ms).
# 3. commit: one database per build of COMMIT_RECORDS generated records, derived once; then
#    COMMIT_ROUNDS interleaved rounds of, per build: COMMIT_WORKERS concurrent `run --parallel 1
#    --batch-size 10` on a bump of `room_type` (no payload read: claims and commits), a re-derivation
#    of every processor (`invalidate`, then the same workers), and an app's writes (psql inserting
#    COMMIT_RECORDS copies of a payload in one statement, then deleting them: the payload trigger per
#    row). Wall seconds, and the server's CPU seconds (every postgres process's utime + stime from /proc).
#
# The synthetic database: a real corpus (`generate --count STATUS_TEMPLATE --corrupt 0.02`, plus two
# small records, one an empty scan and one broken) derived by a real `run`; then, with user triggers
# off, copies of the two small records up to the record count, every 50th the broken one, each with
# its own generation and its template's derived values, stamp entries (at its generation), failures
# and replaced values, as the run wrote them for the template. Small payloads keep a million records
# within a few GB; status reads no payload.
#
# Environment: REDERIVE_BIN and REDERIVE_BEFORE_BIN (required), STATUS_RECORDS (1000000),
# STATUS_CHECK_RECORDS (3000), STATUS_TEMPLATE (2000), STATUS_ROUNDS (5), COMMIT_RECORDS (4000),
# COMMIT_WORKERS (4), COMMIT_ROUNDS (3), STATUS_ONLY (check,status,commit), POSTGRES_BIN
# (/usr/lib/postgresql/15/bin), BENCH_DIR (.build-bench).
set -euo pipefail
cd "$(dirname "$0")/.."
export BENCH_DIR="${BENCH_DIR:-$PWD/.build-bench}"
after="${REDERIVE_BIN:?set REDERIVE_BIN to the rederive of this tree, built with the PostgreSQL trait}"
before="${REDERIVE_BEFORE_BIN:?set REDERIVE_BEFORE_BIN to a rederive of 1c9ed46, built with the PostgreSQL trait}"
records="${STATUS_RECORDS:-1000000}"
check_records="${STATUS_CHECK_RECORDS:-3000}"
template="${STATUS_TEMPLATE:-2000}"
rounds="${STATUS_ROUNDS:-5}"
commit_records="${COMMIT_RECORDS:-4000}"
workers="${COMMIT_WORKERS:-4}"
commit_rounds="${COMMIT_ROUNDS:-3}"
only="${STATUS_ONLY:-check,status,commit}"
pgbin="${POSTGRES_BIN:-/usr/lib/postgresql/15/bin}"
work="$BENCH_DIR/postgres-status"
rm -rf "$work"
mkdir -p "$work"
"$before" --version
"$after" --version

source Benchmarks/postgres-cluster.sh
start_cluster statusbench "fsync = off" "shared_preload_libraries = 'pg_stat_statements'" "pg_stat_statements.track = top"

url() { echo "postgres://postgres@127.0.0.1:$port/$1?sslmode=disable"; }
pg() { local database=$1; shift; "$pgbin/psql" -h 127.0.0.1 -p "$port" -U postgres -X -v ON_ERROR_STOP=1 -A -t -q -F ' ' -d "$database" "$@"; }
pg postgres -c "CREATE EXTENSION pg_stat_statements"

# Builds database $1 of $2 records with rederive $3: a real corpus derived by a real run, then copies.
build() {
    local database=$1 count=$2 rederive=$3
    pg postgres -c "CREATE DATABASE $database"
    "$rederive" generate --db "$(url "$database")" --count "$template" --seed 3 --corrupt 0.02 >/dev/null
    pg "$database" -c "INSERT INTO room_scans (scan_id, payload) VALUES
        ('small-empty', convert_to('{\"walls\": [], \"doors\": [], \"windows\": [], \"openings\": [], \"objects\": []}', 'UTF8')),
        ('small-broken', convert_to('{\"walls\": 5}', 'UTF8'))"
    "$rederive" run --db "$(url "$database")" --progress none >/dev/null || [ $? = 3 ]
    local columns copied
    columns=$(pg "$database" -c "SELECT string_agg(quote_ident(column_name::text), ', ' ORDER BY ordinal_position)
        FROM information_schema.columns WHERE table_name = 'room_scans_derived' AND column_name <> 'id'")
    copied=$(pg "$database" -c "SELECT string_agg('d.' || quote_ident(column_name::text), ', ' ORDER BY ordinal_position)
        FROM information_schema.columns WHERE table_name = 'room_scans_derived' AND column_name <> 'id'")
    pg "$database" >/dev/null <<SQL
SET session_replication_role = replica;
CREATE TEMP TABLE copies AS
SELECT g AS id,
    CASE WHEN g % 50 = 0 THEN (SELECT id FROM room_scans WHERE scan_id = 'small-broken')
    ELSE (SELECT id FROM room_scans WHERE scan_id = 'small-empty') END AS template,
    nextval('rederive_generations') AS generation
FROM generate_series((SELECT max(id) + 1 FROM room_scans), $count) g;
INSERT INTO room_scans (id, scan_id, payload)
SELECT c.id, 'copy-' || c.id, t.payload FROM copies c JOIN room_scans t ON t.id = c.template;
SELECT setval(pg_get_serial_sequence('room_scans', 'id'), (SELECT max(id) FROM room_scans));
INSERT INTO room_scans_derived (id, $columns)
SELECT c.id, $copied FROM copies c JOIN room_scans_derived d ON d.id = c.template;
INSERT INTO rederive_records (source, record_id, generation, committed_run)
SELECT r.source, c.id, c.generation, r.committed_run FROM copies c JOIN rederive_records r ON r.source = 'room_scans' AND r.record_id = c.template;
INSERT INTO rederive_stamps (pipeline, processor, record_id, source, version, generation, payload_digest, current, run_id,
    inputs_digest, input_versions)
SELECT s.pipeline, s.processor, c.id, s.source, s.version, c.generation, s.payload_digest, s.current, s.run_id,
    s.inputs_digest, s.input_versions
FROM copies c JOIN rederive_stamps s ON s.pipeline = 'roomscan' AND s.record_id = c.template;
INSERT INTO rederive_failures (pipeline, processor, record_id, source, version, generation, current, kind, message, run_id, failed_at)
SELECT f.pipeline, f.processor, c.id, f.source, f.version, c.generation, f.current, f.kind, f.message, f.run_id, f.failed_at
FROM copies c JOIN rederive_failures f ON f.pipeline = 'roomscan' AND f.record_id = c.template;
INSERT INTO rederive_replaced (run_id, pipeline, record_id, source, generation, processors)
SELECT x.run_id, x.pipeline, c.id, x.source, c.generation, x.processors
FROM copies c JOIN rederive_replaced x ON x.pipeline = 'roomscan' AND x.record_id = c.template;
RESET session_replication_role;
VACUUM ANALYZE;
SQL
}

# What a run wrote, without run ids and times: values, stamp entries, failures.
dump() {
    local database=$1
    pg "$database" -c "SELECT d.* FROM room_scans_derived d ORDER BY d.id"
    pg "$database" -c "SELECT s.record_id, r.generation, s.processor, s.version, s.generation, s.payload_digest, s.current,
        s.inputs_digest, s.input_versions FROM rederive_stamps s
        JOIN rederive_records r ON r.source = s.source AND r.record_id = s.record_id ORDER BY 1, 3"
    pg "$database" -c "SELECT pipeline, processor, record_id, version, generation, current, kind, message FROM rederive_failures ORDER BY 1, 2, 3"
}

# `status --format json`'s counts, one line per processor.
counts() {
    "$1" status --db "$(url "$2")" --format json | python3 -c '
import json, sys
status = json.load(sys.stdin)
print("records", status["records"])
for p in status["processors"]:
    print(p["name"], p["version"], p["upToDate"], p["stale"], p["failed"])'
}

seconds() {
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null
    end=$(date +%s.%N)
    python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.3f}')" "$start" "$end"
}

# Runs `status` of rederive $1 on database $2; prints the wall seconds of the command and the server's
# milliseconds executing its statements (pg_stat_statements).
status_time() {
    pg postgres -c "SELECT pg_stat_statements_reset()" >/dev/null
    local wall
    wall=$(seconds "$1" status --db "$(url "$2")")
    echo "$wall $(pg postgres -c "SELECT round(sum(total_exec_time)::numeric, 1) FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = '$2')")"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

if [[ ",$only," == *",check,"* ]]; then
    echo "check: a synthetic database of $check_records records against a real run" >&2
    build check_before "$check_records" "$before"
    pg postgres -c "CREATE DATABASE check_after TEMPLATE check_before"
    "$after" run --db "$(url check_after)" --progress none >/dev/null || [ $? = 3 ]
    counts "$before" check_before >"$work/check-before.counts"
    counts "$after" check_after >"$work/check-after.counts"
    diff "$work/check-before.counts" "$work/check-after.counts" || { echo "check: status differs before and after" >&2; exit 1; }
    dump check_after >"$work/check-synthetic.dump"
    "$after" invalidate --db "$(url check_after)" >/dev/null
    "$after" run --db "$(url check_after)" --progress none >/dev/null || [ $? = 3 ]
    dump check_after >"$work/check-derived.dump"
    if ! diff -q "$work/check-synthetic.dump" "$work/check-derived.dump" >/dev/null; then
        echo "check: the synthetic state differs from what a real run writes:" >&2
        diff "$work/check-synthetic.dump" "$work/check-derived.dump" | head -20 >&2
        exit 1
    fi
    counts "$after" check_after >"$work/check-derived.counts"
    diff "$work/check-after.counts" "$work/check-derived.counts" || { echo "check: status differs after a real run" >&2; exit 1; }
    echo "check: the same values, stamps and failures as a real run; the same status before and after ($(wc -l <"$work/check-synthetic.dump") rows)" >&2
fi

if [[ ",$only," == *",status,"* ]]; then
    echo "status: building $records records" >&2
    build status_before "$records" "$before"
    pg postgres -c "CREATE DATABASE status_after TEMPLATE status_before"
    upgrade=$(seconds "$after" run --db "$(url status_after)" --progress none || true)
    echo "status: upgrading the copy (its first run, counting once) took $upgrade s" >&2
    "$after" invalidate --db "$(url status_after)" --key small-empty >/dev/null
    "$after" run --db "$(url status_after)" --progress none >/dev/null || [ $? = 3 ]
    written=$(seconds pg status_after -c "INSERT INTO rederive_projections
            (pipeline, record_id, source, generation, version, checksum, payload_digest, bytes)
        SELECT p.pipeline, s.id, p.source, r.generation, p.version, p.checksum, p.payload_digest, p.bytes
        FROM (SELECT q.* FROM rederive_projections q JOIN room_scans t ON t.id = q.record_id WHERE t.scan_id = 'small-empty') p
        JOIN room_scans t ON t.scan_id = 'small-empty'
        JOIN room_scans s ON s.payload = t.payload
        JOIN rederive_records r ON r.source = 'room_scans' AND r.record_id = s.id
        ON CONFLICT (pipeline, record_id) DO NOTHING")
    pg status_after -c "VACUUM ANALYZE"
    joined="SELECT count(*) FROM rederive_projections p JOIN rederive_records r ON r.source = 'room_scans'
        AND r.record_id = p.record_id AND r.generation = p.generation WHERE p.pipeline = 'roomscan' AND p.version = 1"
    projections=$(pg status_after -c "$joined")
    shown=$("$after" status --db "$(url status_after)" --format json | python3 -c '
import json, sys
print(json.load(sys.stdin)["projections"][0]["current"])')
    [ "$projections" = "$shown" ] || { echo "status: $shown projections kept, $projections recounted" >&2; exit 1; }
    echo "status: $projections projections written in $written s (counted by the triggers); kept count exact" >&2
    counts "$before" status_before >"$work/status-before.counts"
    counts "$after" status_after >"$work/status-after.counts"
    diff "$work/status-before.counts" "$work/status-after.counts" || { echo "status: the counts differ" >&2; exit 1; }
    cat "$work/status-after.counts" >&2
    : >"$work/status.times"
    for round in $(seq 1 "$rounds"); do
        b=$(status_time "$before" status_before)
        a=$(status_time "$after" status_after)
        pg postgres -c "SELECT pg_stat_statements_reset()" >/dev/null
        pg status_after -c "$joined" >/dev/null
        j=$(pg postgres -c "SELECT round(sum(total_exec_time)::numeric, 1) FROM pg_stat_statements
            WHERE dbid = (SELECT oid FROM pg_database WHERE datname = 'status_after')")
        echo "status round $round (wall s, server ms): before $b, after $a; the projection join: $j ms" >&2
        echo "$b $a $j" >>"$work/status.times"
    done
    echo "status at $records records ($projections projections), median of $rounds rounds: before $(cut -d' ' -f1 "$work/status.times" | median) s" \
        "(server $(cut -d' ' -f2 "$work/status.times" | median) ms), after $(cut -d' ' -f3 "$work/status.times" | median) s" \
        "(server $(cut -d' ' -f4 "$work/status.times" | median) ms); the projection join: $(cut -d' ' -f5 "$work/status.times" | median) ms;" \
        "upgrade: $upgrade s; projections written: $written s"
fi

if [[ ",$only," == *",commit,"* ]]; then
    for build in before after; do
        pg postgres -c "CREATE DATABASE commit_$build"
        bin=$before; [ $build = after ] && bin=$after
        "$bin" generate --db "$(url commit_$build)" --count "$commit_records" --seed 10 >/dev/null
        "$bin" run --db "$(url commit_$build)" --progress none >/dev/null
    done
    # Times variant $1 on build $2; prints wall and server CPU seconds.
    measure() {
        local variant=$1 build=$2 bin=$before database=commit_$2
        [ "$build" = after ] && bin=$after
        case $variant in
            room_type) "$bin" invalidate --db "$(url "$database")" --processor room_type >/dev/null ;;
            again) "$bin" invalidate --db "$(url "$database")" >/dev/null ;;
        esac
        pg "$database" -c "VACUUM ANALYZE"
        local cpu start end
        cpu=$(server_cpu)
        start=$(date +%s.%N)
        if [ "$variant" = app ]; then
            pg "$database" -c "INSERT INTO room_scans (scan_id, payload) SELECT 'app-' || g, (SELECT payload FROM room_scans WHERE id = 1)
                FROM generate_series(1, $commit_records) g"
            pg "$database" -c "DELETE FROM room_scans WHERE scan_id LIKE 'app-%'"
        else
            local pids=()
            for i in $(seq 1 "$workers"); do
                "$bin" run --db "$(url "$database")" --parallel 1 --batch-size 10 --progress none >"$work/$variant-$build-$i.out" 2>&1 &
                pids+=($!)
                started_pids+=($!)
            done
            for pid in "${pids[@]}"; do wait "$pid" || { echo "$variant on $build: a worker failed" >&2; cat "$work/$variant-$build"-*.out >&2; exit 1; }; done
        fi
        end=$(date +%s.%N)
        python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f} {float(sys.argv[4]) - float(sys.argv[3]):.2f}')" \
            "$start" "$end" "$cpu" "$(server_cpu)"
    }
    : >"$work/commit.times"
    for round in $(seq 1 "$commit_rounds"); do
        for variant in room_type again app; do
            for build in before after; do
                line="$variant $build $(measure "$variant" "$build")"
                echo "commit round $round: $line" >&2
                echo "$line" >>"$work/commit.times"
            done
        done
    done
    echo "commit path, $commit_records records, $workers workers, median of $commit_rounds (wall s, server CPU s):"
    for variant in room_type again app; do
        line="  $variant:"
        for build in before after; do
            wall=$(awk -v v="$variant" -v b="$build" '$1 == v && $2 == b { print $3 }' "$work/commit.times" | median)
            cpu=$(awk -v v="$variant" -v b="$build" '$1 == v && $2 == b { print $4 }' "$work/commit.times" | median)
            line="$line $build $wall / $cpu"
        done
        echo "$line"
    done
fi
