#!/usr/bin/env python3
"""Measures rederive against its peer and its floor; run through Benchmarks/run.sh.

Every compared variant is measured in the same invocation, interleaved round by round (a, b, c, d,
g, then again) so that a change in the machine's load hits every variant alike; each rate is
records divided by the median wall time of its runs. Database files are built once and cached
under .build-bench/ (see run.sh); every timed run that writes gets a fresh copy first.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.environ.get("BENCH_DIR", os.path.join(ROOT, ".build-bench"))
BIN = os.path.join(ROOT, ".build", "release")
REDERIVE = os.path.join(BIN, "rederive")
FLOOR = os.path.join(BIN, "rederive-floor")
VENV_BIN = os.path.join(WORK, "venv", "bin")
SQLITE_UTILS = os.path.join(VENV_BIN, "sqlite-utils")
PYTHON = os.path.join(VENV_BIN, "python")
PEER_CODE = open(os.path.join(ROOT, "Benchmarks", "peer_convert.py")).read()

COUNT = int(os.environ.get("BENCH_RECORDS", "3510"))       # 13 exports x 270
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
MILLION = int(os.environ.get("BENCH_MILLION", "1000000"))
RSS_SIZES = [int(n) for n in os.environ.get("BENCH_RSS_SIZES", "10000,100000").split(",")]
# A focused run: only these variants (for instance a,a-zlib,c,c-zlib) on both corpora, nothing else.
ONLY = [key for key in os.environ.get("BENCH_ONLY", "").split(",") if key]
# rederive with libdeflate switched off: every payload inflates and digests with zlib.
ZLIB_ONLY = {**os.environ, "REDERIVE_LIBDEFLATE": "0"}
CORES = os.cpu_count() or 1


def log(message):
    print(message, file=sys.stderr, flush=True)


def path(name):
    return os.path.join(WORK, name)


def remove(db):
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)


def fresh(base, work):
    """A byte copy of a checkpointed base database, without stale WAL files, on disk before it is used:
    otherwise the kernel writes the copy back during the timed run, and each commit's fdatasync waits
    behind hundreds of megabytes that are not the run's (a third of a run's wall time on the exports)."""
    remove(work)
    shutil.copyfile(base, work)
    descriptor = os.open(work, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    return work


def run(cmd, stdin=None, check=True, env=None):
    """Runs cmd; returns wall seconds, CPU seconds, peak RSS (MB) and output."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    if stdin:
        proc.stdin.write(stdin.encode())
        proc.stdin.close()
    out = proc.stdout.read().decode(errors="replace")
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if check and code != 0:
        raise SystemExit(f"command failed ({code}): {' '.join(cmd)}\n{out}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss_mb": usage.ru_maxrss / 1024, "out": out.strip()}


def checkpoint(db):
    import sqlite3
    con = sqlite3.connect(db)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()


# ---------------------------------------------------------------- building the databases (cached)

def schema(db):
    """rederive's tables and the pipeline's, each with its columns: what a cached database must match."""
    import sqlite3
    con = sqlite3.connect(db)
    tables = [row[0] for row in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    found = {table: [row[1] for row in con.execute(f'PRAGMA table_info("{table}")')] for table in tables}
    con.close()
    return found


def current(db, layout):
    """Whether a cached database has the schema this build of rederive prepares: one built before a
    processor or a bookkeeping column was added would measure a schema change, not a run."""
    probe = path("schema-probe.sqlite")
    remove(probe)
    run([FLOOR, "prepare", probe, layout])
    expected = schema(probe)
    remove(probe)
    return schema(db) == expected


def build(name, kind, count, layout="companion", derive=False):
    """Builds (once) a database of `count` records; derived fully when `derive`. Rebuilt when the
    schema rederive prepares has changed since."""
    db = path(name)
    if os.path.exists(db):
        if current(db, layout):
            return db
        log(f"{name} was built with an older schema: building it again")
        remove(db)
    tmp = db + ".building"
    remove(tmp)
    log(f"building {name} ({kind}, {count} records, {layout}{', derived' if derive else ''})")
    run([FLOOR, "prepare", tmp, layout])
    if kind == "generate":
        run([REDERIVE, "generate", "--db", tmp, "--count", str(count)])
    else:
        run([sys.executable, os.path.join(ROOT, "Benchmarks", "make_db.py"), kind, tmp, str(count)])
    if derive:
        result = run([FLOOR, "run", tmp, layout, str(CORES)])
        log("  " + result["out"])
    checkpoint(tmp)
    remove(tmp + "-wal")
    remove(tmp + "-shm")
    os.rename(tmp, db)
    return db


# ---------------------------------------------------------------- measuring

def variants(corpus, base, inline_base):
    work = path("work.sqlite")
    rows = [
        ("a", f"rederive run --parallel 8 ({corpus})",
         lambda: fresh(base, work), lambda: run([REDERIVE, "run", "--db", work, "--parallel", "8", "--progress", "none"])),
        ("a-zlib", f"rederive run --parallel 8, zlib only ({corpus})",
         lambda: fresh(base, work),
         lambda: run([REDERIVE, "run", "--db", work, "--parallel", "8", "--progress", "none"], env=ZLIB_ONLY)),
        ("b", f"sqlite-utils convert --multi ({corpus})",
         lambda: fresh(base, work),
         lambda: run([SQLITE_UTILS, "convert", work, "room_scans", "payload", "-", "--multi", "--silent"], stdin=PEER_CODE)),
        ("c", f"floor: read + inflate (libdeflate), {CORES} threads ({corpus})",
         lambda: None, lambda: run([FLOOR, "inflate", base, str(CORES), "libdeflate"])),
        ("c-zlib", f"floor: read + inflate with zlib, {CORES} threads ({corpus})",
         lambda: None, lambda: run([FLOOR, "inflate", base, str(CORES), "zlib"])),
        ("d", f"rederive run --parallel 1 ({corpus})",
         lambda: fresh(base, work), lambda: run([REDERIVE, "run", "--db", work, "--parallel", "1", "--progress", "none"])),
        ("s", f"the seed pattern: fetch all, JSONDecoder, save once ({corpus})",
         lambda: fresh(base, work), lambda: run([FLOOR, "seed", work])),
        ("g", f"inline layout, Runner parallel 8 ({corpus})",
         lambda: fresh(inline_base, work), lambda: run([FLOOR, "run", work, "inline", "8"])),
    ]
    return [row for row in rows if not ONLY or row[0] in ONLY]


def measure(rows, records, rounds):
    """Interleaves the variants round by round; returns one result per variant."""
    samples = {key: [] for key, *_ in rows}
    last = {}
    for round_ in range(rounds):
        for key, label, prepare, command in rows:
            prepare()
            result = command()
            samples[key].append(result)
            last[key] = result
            log(f"  round {round_ + 1} {key}: {result['wall']:.2f} s  {label}")
    results = {}
    for key, label, *_ in rows:
        walls = [s["wall"] for s in samples[key]]
        wall = statistics.median(walls)
        results[key] = {
            "label": label, "records": records, "wall": wall, "walls": walls,
            "rate": records / wall, "cpu": statistics.median(s["cpu"] for s in samples[key]),
            "rss_mb": max(s["rss_mb"] for s in samples[key]), "out": last[key]["out"],
        }
    return results


def bump(corpus, derived_bases, rounds):
    """A logic-version bump of wall_metrics, simulated with `invalidate --processor wall_metrics`."""
    work = path("work.sqlite")
    rows = []
    for layout, base in derived_bases.items():
        def prepare(base=base, layout=layout):
            fresh(base, work)
            if layout == "companion":
                run([REDERIVE, "invalidate", "--db", work, "--processor", "wall_metrics"])
            else:
                run([FLOOR, "invalidate", work, layout, "wall_metrics"])
        rows.append((f"g-bump-{layout}", f"bump wall_metrics, {layout} layout ({corpus})", prepare,
                     lambda layout=layout: run([FLOOR, "run", work, layout, "8"])))
    return measure(rows, COUNT, rounds)


def million(rounds):
    base = path(f"tiny-{MILLION}-derived.sqlite")
    rows = [
        ("e-status", f"rederive status, {MILLION:,} records", lambda: None,
         lambda: run([REDERIVE, "status", "--db", base])),
        ("e-noop", f"rederive run, nothing stale, {MILLION:,} records", lambda: None,
         lambda: run([REDERIVE, "run", "--db", base, "--progress", "none"])),
    ]
    return measure(rows, MILLION, rounds)


def peak_rss():
    """Peak RSS from /usr/bin/time -v of a full run (every record stale)."""
    results = {}
    work = path("work.sqlite")
    plans = [("tiny", n) for n in RSS_SIZES] + [("exports", RSS_SIZES[0])]
    for kind, n in plans:
        fresh(path(f"{kind}-{n}.sqlite"), work)
        result = run(["/usr/bin/time", "-v", REDERIVE, "run", "--db", work, "--parallel", "8", "--progress", "none"])
        kb = next(int(line.split(":")[1]) for line in result["out"].splitlines() if "Maximum resident set size" in line)
        results[f"f-{kind}-{n}"] = {"label": f"peak RSS, run over {n:,} records ({kind})", "records": n,
                                   "wall": result["wall"], "rate": n / result["wall"], "rss_mb": kb / 1024}
        log(f"  f {kind} {n}: {kb / 1024:.1f} MB in {result['wall']:.1f} s")
    return results


def machine():
    model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    git = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    return {"nproc": CORES, "cpu": model, "commit": git, "load_before": os.getloadavg()[0]}


def main():
    os.makedirs(WORK, exist_ok=True)
    info = machine()
    log(f"machine: {info}")
    exports = build(f"exports-{COUNT}.sqlite", "exports", COUNT)
    generated = build(f"generate-{COUNT}.sqlite", "generate", COUNT)
    if ONLY:
        focused(info, exports, generated)
        return
    exports_inline = build(f"exports-{COUNT}-inline.sqlite", "exports", COUNT, layout="inline")
    generated_inline = path(f"generate-{COUNT}-inline.sqlite")
    if not os.path.exists(generated_inline):
        # The same generated payloads in an inline-layout table.
        import sqlite3
        tmp = generated_inline + ".building"
        remove(tmp)
        run([FLOOR, "prepare", tmp, "inline"])
        con = sqlite3.connect(tmp)
        con.execute("ATTACH ? AS g", (generated,))
        with con:
            con.execute("INSERT INTO room_scans (id, scan_id, payload) SELECT id, scan_id, payload FROM g.room_scans")
        con.close()
        checkpoint(tmp)
        os.rename(tmp, generated_inline)
    derived = {layout: build(f"exports-{COUNT}-{layout}-derived.sqlite", "exports", COUNT, layout=layout, derive=True)
               for layout in ("companion", "inline")}
    build(f"tiny-{MILLION}-derived.sqlite", "tiny", MILLION, derive=True)
    for kind, n in [("tiny", n) for n in RSS_SIZES] + [("exports", RSS_SIZES[0])]:
        build(f"{kind}-{n}.sqlite", kind, n)
    if os.environ.get("BENCH_BUILD_ONLY"):
        return

    results = {}
    log("real exports: a a-zlib b c c-zlib d g")
    results["exports"] = measure(variants("real exports", exports, exports_inline), COUNT, ROUNDS)
    log("generate corpus: a a-zlib b c c-zlib d g")
    results["generate"] = measure(variants("generate corpus", generated, generated_inline), COUNT, ROUNDS)
    log("logic-version bump")
    results["bump"] = bump("real exports", derived, ROUNDS)
    log("1M records: status and no-op run")
    results["million"] = million(ROUNDS)
    log("peak RSS")
    results["rss"] = peak_rss()
    info["load_after"] = os.getloadavg()[0]
    report(info, results)


def focused(info, exports, generated):
    """Measures only the BENCH_ONLY variants, on both corpora, and prints their table and ratios."""
    missing = os.path.join(WORK, "missing.sqlite")
    results = {}
    for corpus, base in (("real exports", exports), ("generate corpus", generated)):
        log(f"{corpus}: {', '.join(ONLY)}")
        results[corpus] = measure(variants(corpus, base, missing), COUNT, ROUNDS)
    info["load_after"] = os.getloadavg()[0]
    lines = table(info, results)
    lines += ["", "| ratio | real exports | generate corpus |", "|---|---:|---:|"]
    ex, ge = results["real exports"], results["generate corpus"]
    for name, faster, slower in (("libdeflate speed-up, floor (c-zlib wall / c wall)", "c", "c-zlib"),
                                 ("libdeflate speed-up, run (a-zlib wall / a wall)", "a", "a-zlib")):
        if faster in ex and slower in ex:
            lines.append(f"| {name} | {ex[slower]['wall'] / ex[faster]['wall']:.2f} | {ge[slower]['wall'] / ge[faster]['wall']:.2f} |")
    print("\n".join(lines))


def table(info, results):
    """The machine line and one table row per measured variant."""
    lines = [f"machine: {info['nproc']} cores, {info['cpu']}, commit {info['commit']}, "
             f"load average {info['load_before']:.1f} before / {info['load_after']:.1f} after",
             f"{COUNT:,} records per corpus, median of {ROUNDS} interleaved runs", "",
             "| | variant | records | median wall s | records/s | CPU s | peak RSS MB |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for group in results.values():
        for key, r in group.items():
            lines.append(f"| {key} | {r['label']} | {r['records']:,} | {r['wall']:.3f} | {r['rate']:,.0f} | "
                         f"{r.get('cpu', float('nan')):.2f} | {r['rss_mb']:.1f} |")
    return lines


def report(info, results):
    lines = table(info, results)
    lines += ["", "| ratio | real exports | generate corpus | target |", "|---|---:|---:|---|"]
    ex, ge = results["exports"], results["generate"]
    lines.append(f"| libdeflate: a-zlib wall / a wall | {ex['a-zlib']['wall'] / ex['a']['wall']:.2f} | "
                 f"{ge['a-zlib']['wall'] / ge['a']['wall']:.2f} | (speed-up) |")
    lines.append(f"| libdeflate: c-zlib wall / c wall | {ex['c-zlib']['wall'] / ex['c']['wall']:.2f} | "
                 f"{ge['c-zlib']['wall'] / ge['c']['wall']:.2f} | (speed-up) |")
    for name, den, target in (("a/b", "b", "≥ 4"), ("a/s", "s", "≥ 4"), ("a/c", "c", "≥ 0.7"),
                              ("a/d", "d", "≥ 1.7"), ("g/a", None, "(inline cost)")):
        if den:
            lines.append(f"| {name} | {ex['a']['rate'] / ex[den]['rate']:.2f} | {ge['a']['rate'] / ge[den]['rate']:.2f} | {target} |")
        else:
            lines.append(f"| {name} | {ex['g']['rate'] / ex['a']['rate']:.2f} | {ge['g']['rate'] / ge['a']['rate']:.2f} | {target} |")
    lines.append(f"| cores used by a (CPU s / wall s) | {ex['a']['cpu'] / ex['a']['wall']:.2f} | "
                 f"{ge['a']['cpu'] / ge['a']['wall']:.2f} | ≥ 1.8 of {CORES} |")
    bm = results["bump"]
    lines.append(f"| bump inline/companion wall | {bm['g-bump-inline']['wall'] / bm['g-bump-companion']['wall']:.2f} | | (inline cost) |")
    mi = results["million"]
    lines.append(f"| status on {MILLION:,} s | {mi['e-status']['wall']:.3f} | | < 1 |")
    lines.append(f"| no-op run on {MILLION:,} s | {mi['e-noop']['wall']:.3f} | | < 1 |")
    rss = results["rss"]
    small, large = rss[f"f-tiny-{RSS_SIZES[0]}"]["rss_mb"], rss[f"f-tiny-{RSS_SIZES[-1]}"]["rss_mb"]
    lines.append(f"| peak RSS {RSS_SIZES[-1]:,} / {RSS_SIZES[0]:,} (tiny) | {large / small:.2f} | | ≤ 1.2, each < 150 MB |")
    text = "\n".join(lines)
    print(text)
    with open(path("results.md"), "w") as f:
        f.write(text + "\n")
    with open(path("results.json"), "w") as f:
        json.dump({"machine": info, "results": results}, f, indent=2)


if __name__ == "__main__":
    main()
