# The throwaway PostgreSQL cluster of the PostgreSQL benchmarks, sourced by them (not run):
#
#     pgbin="${POSTGRES_BIN:-/usr/lib/postgresql/15/bin}"
#     source Benchmarks/postgres-cluster.sh
#     start_cluster NAME ['postgresql.conf line' ...]
#
# start_cluster makes a cluster (initdb and pg_ctl from $pgbin, as user postgres when run as root: the
# server refuses to run as root) in a temporary directory named after NAME, on a free port of
# 127.0.0.1, with the lines given added to its postgresql.conf, and starts it. It sets `cluster` (the
# directory), `port` and `postmaster` (the server's process id). On exit, whatever happens, the
# processes whose ids the script added to `started_pids` are killed, then the cluster is stopped and
# deleted. Also defined: as_server, server_cpu, quiesce, time_workers, runs_counted.

if [ ! -x "$pgbin/initdb" ]; then
    echo "no PostgreSQL server binaries at $pgbin (set POSTGRES_BIN)" >&2
    exit 1
fi

# Runs a command as the server's user: postgres when run as root.
as_server() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

cluster=""
# Processes the script started and that must not outlive it (workers, samplers).
started_pids=()

stop_cluster() {
    [ -n "$cluster" ] || return 0
    as_server "$pgbin/pg_ctl" -D "$cluster/data" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$cluster"
}

on_exit() {
    for pid in "${started_pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    stop_cluster
}
trap on_exit EXIT
trap 'exit 130' INT TERM

# Makes and starts the cluster: start_cluster NAME [postgresql.conf line ...].
start_cluster() {
    local name=$1
    shift
    cluster=$(mktemp -d "${TMPDIR:-/tmp}/rederive-$name-XXXXXX")
    if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$cluster"; fi
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    as_server "$pgbin/initdb" -D "$cluster/data" -U postgres --auth=trust -E UTF8 --no-sync >/dev/null
    {
        echo "listen_addresses = '127.0.0.1'"
        echo "port = $port"
        echo "unix_socket_directories = '$cluster'"
        local line
        for line in "$@"; do echo "$line"; done
    } >>"$cluster/data/postgresql.conf"
    as_server "$pgbin/pg_ctl" -D "$cluster/data" -l "$cluster/server.log" -w -t 60 start >/dev/null
    postmaster=$(head -1 "$cluster/data/postmaster.pid")
}

# Waits until no other client backend is left, so that the ended ones have flushed their counts.
quiesce() {
    local query="SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()"
    until [ "$("$pgbin/psql" -h 127.0.0.1 -p "$port" -U postgres -X -A -t -q -d postgres -c "$query")" = 0 ]; do
        sleep 0.05
    done
    sleep 0.2
}

# CPU seconds of the server so far: every postgres process, and the backends that already ended.
server_cpu() {
    python3 - "$postmaster" <<'PY'
import os, sys
postmaster, ticks = sys.argv[1], 0
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        stat = open(f"/proc/{pid}/stat").read()
    except OSError:
        continue
    fields = stat[stat.rindex(")") + 2:].split()  # from field 3 (state): ppid is [1], utime..cstime [11:15]
    if pid == postmaster:
        ticks += sum(map(int, fields[11:15]))
    elif fields[1] == postmaster:
        ticks += int(fields[11]) + int(fields[12])
print(ticks / os.sysconf("SC_CLK_TCK"))
PY
}

# Starts COUNT workers, each running COMMAND with its output in TAG.out1, TAG.out2, ..., waits for
# them all and writes their wall, user and system seconds together to TAG.time; when one fails, prints
# every worker's output and exits: time_workers TAG COUNT COMMAND [ARGUMENT ...].
time_workers() {
    local tag=$1 count=$2
    shift 2
    local TIMEFORMAT='%3R %3U %3S'
    if ! { time (
        pids=()
        for worker in $(seq 1 "$count"); do
            "$@" >"$tag.out$worker" 2>&1 &
            pids+=($!)
        done
        status=0
        for pid in "${pids[@]}"; do wait "$pid" || status=$?; done
        exit $status
    ); } 2>"$tag.time"; then
        echo "$(basename "$tag"): a worker failed:" >&2
        cat "$tag".out* >&2
        exit 1
    fi
}

# A subquery of the runs, each with what it and the workers that shared it counted: columns id,
# derived, unchanged, failed, skipped.
runs_counted="(SELECT r.id, r.derived + coalesce(sum(s.derived), 0) AS derived,
    r.unchanged + coalesce(sum(s.unchanged), 0) AS unchanged, r.failed + coalesce(sum(s.failed), 0) AS failed,
    r.skipped + coalesce(sum(s.skipped), 0) AS skipped
    FROM rederive_runs r LEFT JOIN rederive_run_shares s ON s.run_id = r.id GROUP BY r.id) AS runs"
