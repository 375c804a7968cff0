#!/usr/bin/env bash
# The throughput cost of each throttle check (issue 27): bash Benchmarks/throttles.sh
#
# Times the same bump (`invalidate --processor THROTTLE_PROCESSOR`, untimed, then `rederive run
# --parallel 2`) with no throttle and with each throttle that never holds, interleaved round by round
# (the order of the variants rotates each round), and prints each variant's median wall and CPU
# seconds with its ratio to the run without a throttle:
#
# - SQLite: `--pause-while` reading a flag table at its default interval (5 s) and at the shortest one
#   (0.1 s), and `--max-wal-size 1024` (a passive checkpoint every second, on the writer's connection).
# - PostgreSQL: the same `--pause-while` pair, and `--max-replica-lag 60` (pg_stat_replication every
#   second) against a real streaming standby: a throwaway PostgreSQL 15 primary (wal_level=replica) and
#   a standby made by `pg_basebackup -R`, both on loopback, as user postgres when run as root; stopped
#   and deleted on exit, whatever happens. The standby streams in every variant.
#
# Before each timed run, untimed: the bump's invalidate, and a TRUNCATE checkpoint (SQLite) or VACUUM
# ANALYZE (PostgreSQL), so that every run starts from the same log. Every run must have handled every
# record (its `history --format json` counts), none failed. The flag stays 0: the throttles are checked
# and never hold, so what a variant adds is its checks alone.
#
# Environment: REDERIVE_BIN (a release build of rederive; otherwise this builds one with `swift build -c
# release`), REDERIVE_PG_BIN (a build with the PostgreSQL trait; otherwise this builds one with `swift
# build -c release --traits PostgreSQL --scratch-path .build-pg-release`), THROTTLE_RECORDS (20000,
# SQLite), THROTTLE_PG_RECORDS (5000), THROTTLE_ROUNDS (5), THROTTLE_PROCESSOR (element_counts: from each
# record's stored projection read), THROTTLE_RUN_OPTIONS (added to every timed run, such as
# --no-projection to read and inflate every payload), THROTTLE_ONLY (sqlite,postgres), POSTGRES_BIN
# (/usr/lib/postgresql/15/bin), BENCH_DIR (.build-bench).
set -euo pipefail
cd "$(dirname "$0")/.."
export BENCH_DIR="${BENCH_DIR:-$PWD/.build-bench}"
records="${THROTTLE_RECORDS:-20000}"
pg_records="${THROTTLE_PG_RECORDS:-5000}"
rounds="${THROTTLE_ROUNDS:-5}"
processor="${THROTTLE_PROCESSOR:-element_counts}"
only="${THROTTLE_ONLY:-sqlite,postgres}"
read -r -a run_options <<<"${THROTTLE_RUN_OPTIONS:-}"
pgbin="${POSTGRES_BIN:-/usr/lib/postgresql/15/bin}"
work="$BENCH_DIR/throttles"
rm -rf "$work"
mkdir -p "$work"
results="$work/results.txt"
: >"$results"

flag_query="SELECT on_hold FROM maintenance"
# Each variant's throttle options, by name; the first is the one the others are compared with.
sqlite_variants=(none pause-while pause-while-0.1 max-wal-size)
postgres_variants=(none pause-while pause-while-0.1 max-replica-lag)
throttle_options() {
    case $1 in
        none) ;;
        pause-while) printf '%s\n' --pause-while "$flag_query" ;;
        pause-while-0.1) printf '%s\n' --pause-while "$flag_query" --pause-while-interval 0.1 ;;
        max-wal-size) printf '%s\n' --max-wal-size 1024 ;;
        max-replica-lag) printf '%s\n' --max-replica-lag 60 ;;
    esac
}

# Times `run` of $rederive on database $3 for store $1, variant $2, round $4, expecting $5 records
# handled; appends `store variant round wall user sys` to $results.
measure() {
    local store=$1 variant=$2 db=$3 round=$4 expected=$5 tag="$work/$1-$2-$4"
    "$rederive" invalidate --db "$db" --processor "$processor" >/dev/null
    settle "$store" "$db"
    local options=()
    mapfile -t options < <(throttle_options "$variant")
    options+=(${run_options[@]+"${run_options[@]}"})
    TIMEFORMAT='%3R %3U %3S'
    if ! { time "$rederive" run --db "$db" --parallel 2 --progress none "${options[@]}" >"$tag.out" 2>&1; } 2>"$tag.time"; then
        echo "$store $variant round $round: the run failed:" >&2
        cat "$tag.out" >&2
        exit 1
    fi
    local handled
    handled=$("$rederive" history --db "$db" --format json | python3 -c '
import json, sys
run = json.load(sys.stdin)[0]
print(run["derived"] + run["unchanged"], run["failed"], run["status"])')
    read -r done failed status <<<"$handled"
    if [ "$done" -ne "$expected" ] || [ "$failed" -ne 0 ] || [ "$status" != completed ]; then
        echo "$store $variant round $round: handled $done of $expected, $failed failed, $status" >&2
        exit 1
    fi
    echo "$store $variant $round $(cat "$tag.time")" >>"$results"
    echo "$store $variant round $round: $(cat "$tag.time")" >&2
}

# Runs every variant of store $1 (array name $2) on database $3 for $rounds rounds, rotating the order.
interleave() {
    local store=$1 db=$3 expected=$4
    local -n variants=$2
    local count=${#variants[@]}
    for round in $(seq 1 "$rounds"); do
        for i in $(seq 0 $((count - 1))); do
            measure "$store" "${variants[$(((i + round) % count))]}" "$db" "$round" "$expected"
        done
    done
}

settle() {
    case $1 in
        sqlite) python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("PRAGMA wal_checkpoint(TRUNCATE)")' "$2" ;;
        postgres) pg -c "VACUUM ANALYZE" >/dev/null ;;
    esac
}

if [[ ",$only," == *,sqlite,* ]]; then
    if [ -n "${REDERIVE_BIN:-}" ]; then
        rederive="$REDERIVE_BIN"
    else
        swift build -c release --product rederive
        rederive="$(swift build -c release --show-bin-path)/rederive"
    fi
    "$rederive" --version
    db="$work/throttles.sqlite"
    "$rederive" generate --db "$db" --count "$records" --seed 27 >/dev/null
    "$rederive" run --db "$db" --parallel 2 --progress none >/dev/null
    python3 -c '
import sqlite3, sys
with sqlite3.connect(sys.argv[1]) as db:
    db.execute("CREATE TABLE maintenance (on_hold INTEGER NOT NULL)")
    db.execute("INSERT INTO maintenance VALUES (0)")' "$db"
    interleave sqlite sqlite_variants "$db" "$records"
fi

if [[ ",$only," == *,postgres,* ]]; then
    if [ ! -x "$pgbin/initdb" ]; then
        echo "no PostgreSQL server binaries at $pgbin (set POSTGRES_BIN)" >&2
        exit 1
    fi
    if [ -n "${REDERIVE_PG_BIN:-}" ]; then
        rederive="$REDERIVE_PG_BIN"
    else
        swift build -c release --traits PostgreSQL --scratch-path .build-pg-release --product rederive
        rederive="$(swift build -c release --traits PostgreSQL --scratch-path .build-pg-release --show-bin-path)/rederive"
    fi
    "$rederive" --version
    as_server() {
        if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
    }
    clusters=$(mktemp -d "${TMPDIR:-/tmp}/rederive-throttles-XXXXXX")
    stop_clusters() {
        for data in "$clusters/standby" "$clusters/primary"; do
            [ -d "$data" ] && as_server "$pgbin/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
        done
        rm -rf "$clusters"
    }
    trap stop_clusters EXIT
    trap 'exit 130' INT TERM
    if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$clusters"; fi
    free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
    port=$(free_port)
    as_server "$pgbin/initdb" -D "$clusters/primary" -U postgres --auth=trust -E UTF8 --no-sync >/dev/null
    cat >>"$clusters/primary/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$clusters'
wal_level = replica
max_wal_senders = 4
CONF
    as_server "$pgbin/pg_ctl" -D "$clusters/primary" -l "$clusters/primary.log" -w -t 60 start >/dev/null
    standby_port=$(free_port)
    as_server "$pgbin/pg_basebackup" -h 127.0.0.1 -p "$port" -U postgres -D "$clusters/standby" -R -X stream --no-sync
    as_server "$pgbin/pg_ctl" -D "$clusters/standby" -l "$clusters/standby.log" -w -t 60 \
        -o "-p $standby_port -c hot_standby=on" start >/dev/null
    database=bench
    pg() { "$pgbin/psql" -h 127.0.0.1 -p "$port" -U postgres -X -v ON_ERROR_STOP=1 -A -t -q -d "$database" "$@"; }
    until [ "$(database=postgres pg -c "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'")" = 1 ]; do
        sleep 0.1
    done
    database=postgres pg -c "CREATE DATABASE bench"
    url="postgres://postgres@127.0.0.1:$port/$database?sslmode=disable"
    "$rederive" generate --db "$url" --count "$pg_records" --seed 27 >/dev/null
    "$rederive" run --db "$url" --parallel 2 --progress none >/dev/null
    pg -c "CREATE TABLE maintenance (on_hold boolean NOT NULL); INSERT INTO maintenance VALUES (false)"
    interleave postgres postgres_variants "$url" "$pg_records"
fi

python3 - "$results" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
for store in dict.fromkeys(row[0] for row in rows):
    runs = [row for row in rows if row[0] == store]
    # The run without a throttle first: every ratio is to it.
    variants = sorted(dict.fromkeys(row[1] for row in runs), key=lambda variant: variant != "none")
    def median(variant, value):
        return statistics.median(value(row) for row in runs if row[1] == variant)
    wall_of = lambda row: float(row[3])
    cpu_of = lambda row: float(row[4]) + float(row[5])
    base_wall, base_cpu = median("none", wall_of), median("none", cpu_of)
    print(f"\n{store}: median of {len([r for r in runs if r[1] == 'none'])} interleaved rounds")
    print("| variant | wall s | CPU s | wall / none | CPU / none | rounds, wall s |")
    print("|---|---:|---:|---:|---:|---|")
    for variant in variants:
        wall, cpu = median(variant, wall_of), median(variant, cpu_of)
        each = " / ".join(row[3] for row in runs if row[1] == variant)
        print(f"| {variant} | {wall:.2f} | {cpu:.2f} | {wall / base_wall:.3f} | {cpu / base_cpu:.3f} | {each} |")
PY
