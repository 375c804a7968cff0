#!/usr/bin/env python3
"""A first derivation by several rederive builds, side by side, in interleaved rounds.

    python3 Benchmarks/first-derivation.py [--records 3510] [--rounds 5] [--parallel 8] [--floor]
                                           [--bump PROCESSOR] NAME=BINARY ...

Builds once (under BENCH_DIR, .build-bench by default) a database of the 13 real RoomPlan exports
copied round-robin to RECORDS records, none derived, with `rederive-floor prepare` (FLOOR_BIN, the
release build's by default) and make_db.py. Each round then runs every build in turn, in the order
given, on a fresh copy of it: `rederive run --parallel N`, timed as a whole process (wall seconds, and
user + system CPU seconds of the process and its children). The copy is made before the clock starts.

Prints each run, each build's median records a second and CPU seconds, and the ratios of every build to
the last one given, pair by pair within a round (wall: time over the last's time; above 1 is slower).

With --bump PROCESSOR, each run is a bump instead: the base database derived once by each build, with
its own projections (cached by build name: a projection's version may differ between builds), and on
each fresh copy `invalidate --processor PROCESSOR` before the
clock starts, then the timed `rederive run`, which derives from the projections.

With --floor, each round also runs the read + inflate floor on the base database (`rederive-floor inflate
DB 2 libdeflate`: SQLite and libdeflate only, one thread per core, nothing decoded or written), and prints
each build's records a second as a fraction of the floor's, pair by pair within a round.
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.environ.get("BENCH_DIR", os.path.join(ROOT, ".build-bench"))
FLOOR = os.environ.get("FLOOR_BIN", os.path.join(ROOT, ".build", "release", "rederive-floor"))


def base_database(records):
    """The cached database of `records` real exports, none derived."""
    db = os.path.join(WORK, f"first-derivation-{records}.sqlite")
    if os.path.exists(db):
        return db
    os.makedirs(WORK, exist_ok=True)
    building = db + ".building"
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(building + suffix):
            os.remove(building + suffix)
    subprocess.run([FLOOR, "prepare", building, "companion"], check=True)
    subprocess.run([sys.executable, os.path.join(ROOT, "Benchmarks", "make_db.py"), "exports", building, str(records)], check=True)
    subprocess.run(["sqlite3", building, "PRAGMA wal_checkpoint(TRUNCATE);"], check=True, capture_output=True)
    os.rename(building, db)
    return db


def derived_database(base, name, binary, parallel):
    """The cached copy of `base` derived once by `binary` (build `name`), with its projections."""
    db = base.replace(".sqlite", f"-derived-{name}.sqlite")
    if not os.path.exists(db):
        building = db + ".building"
        shutil.copyfile(base, building)
        subprocess.run([binary, "run", "--parallel", str(parallel), "--db", building], check=True, capture_output=True)
        subprocess.run(["sqlite3", building, "PRAGMA wal_checkpoint(TRUNCATE);"], check=True, capture_output=True)
        os.rename(building, db)
    return db


def timed_run(command):
    """Wall and CPU seconds of one process running `command`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{command[0]} exited {done.returncode}: {done.stderr[-400:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=3510)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--parallel", type=int, default=8)
    parser.add_argument("--floor", action="store_true", help="run the read + inflate floor in each round too")
    parser.add_argument("--bump", metavar="PROCESSOR", help="time a bump of PROCESSOR on projections instead")
    parser.add_argument("builds", nargs="+", metavar="NAME=BINARY")
    args = parser.parse_args()
    builds = dict(build.split("=", 1) for build in args.builds)
    base = base_database(args.records)
    sources = {name: derived_database(base, name, binary, args.parallel) if args.bump else base for name, binary in builds.items()}
    copy = os.path.join(WORK, "first-derivation-run.sqlite")
    runs = {name: [] for name in builds}
    floor = []
    for round in range(args.rounds):
        if args.floor:
            os.sync()
            wall, cpu = timed_run([FLOOR, "inflate", base, "2", "libdeflate"])
            floor.append((wall, cpu))
            print(f"round {round + 1} floor: {args.records / wall:.0f} records/s, wall {wall:.2f} s, CPU {cpu:.2f} s", flush=True)
        for name, binary in builds.items():
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(copy + suffix):
                    os.remove(copy + suffix)
            shutil.copyfile(sources[name], copy)
            if args.bump:
                subprocess.run([binary, "invalidate", "--processor", args.bump, "--db", copy], check=True, capture_output=True)
            os.sync()
            wall, cpu = timed_run([binary, "run", "--parallel", str(args.parallel), "--db", copy])
            runs[name].append((wall, cpu))
            print(f"round {round + 1} {name}: {args.records / wall:.0f} records/s, wall {wall:.2f} s, CPU {cpu:.2f} s", flush=True)
    names = list(builds)
    for name in names:
        wall = statistics.median(run[0] for run in runs[name])
        cpu = statistics.median(run[1] for run in runs[name])
        print(f"{name}: median {args.records / wall:.0f} records/s, wall {wall:.2f} s, CPU {cpu:.2f} s")
    if floor:
        wall = statistics.median(run[0] for run in floor)
        print(f"floor: median {args.records / wall:.0f} records/s, wall {wall:.2f} s, CPU {statistics.median(run[1] for run in floor):.2f} s")
        for name in names:
            fractions = [floor[i][0] / runs[name][i][0] for i in range(args.rounds)]
            print(f"{name} / floor, records a second: {statistics.median(fractions):.3f} "
                  f"(min {min(fractions):.3f}, max {max(fractions):.3f})")
    last = names[-1]
    for name in names[:-1]:
        walls = [runs[name][i][0] / runs[last][i][0] for i in range(args.rounds)]
        cpus = [runs[name][i][1] / runs[last][i][1] for i in range(args.rounds)]
        print(f"{name} / {last}: wall {statistics.median(walls):.3f} (min {min(walls):.3f}, max {max(walls):.3f}), "
              f"CPU {statistics.median(cpus):.3f} (min {min(cpus):.3f}, max {max(cpus):.3f})")


if __name__ == "__main__":
    main()
