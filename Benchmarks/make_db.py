#!/usr/bin/env python3
"""Fills room_scans of a database whose schema `rederive-floor prepare` created.

    make_db.py exports DB COUNT     the 13 real RoomPlan exports, zlib level 6, copied round-robin
                                    under distinct scan_ids until COUNT records
    make_db.py tiny DB COUNT        COUNT small synthetic rooms (one to four walls, a few objects),
                                    zlib level 6, each payload distinct

Rows go in with plain INSERTs so that rederive's triggers register every record, exactly as an
application writing the table would.
"""
import glob
import json
import os
import sqlite3
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
EXPORTS = os.path.join(HERE, "..", "Tests", "RoomScanTests", "Fixtures", "roomplan")


def identity_transform(x, z):
    return [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, 0, z, 1]


def tiny_room(i):
    walls = [
        {"dimensions": [2.0 + (i + k) % 5, 2.4 + k * 0.05, 0], "transform": identity_transform(k, (i % 3) + k)}
        for k in range(1 + i % 4)
    ]
    objects = [{"category": {["chair", "table", "bed", "sofa"][(i + k) % 4]: {}}} for k in range(i % 3)]
    return {"walls": walls, "doors": [], "windows": [], "openings": [], "objects": objects}


def rows(kind, count):
    if kind == "exports":
        blobs = [zlib.compress(open(p, "rb").read(), 6) for p in sorted(glob.glob(os.path.join(EXPORTS, "*.json")))]
        names = [os.path.basename(p)[:-5] for p in sorted(glob.glob(os.path.join(EXPORTS, "*.json")))]
        for i in range(count):
            yield f"{names[i % len(names)]}#{i}", blobs[i % len(blobs)]
    elif kind == "tiny":
        for i in range(count):
            yield f"tiny-{i}", zlib.compress(json.dumps(tiny_room(i), separators=(",", ":")).encode(), 6)
    else:
        raise SystemExit(f"unknown kind {kind}")


def main():
    kind, path, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=OFF")
    with db:
        db.executemany("INSERT INTO room_scans (scan_id, payload) VALUES (?, ?)", rows(kind, count))
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    total = db.execute("SELECT count(*) FROM room_scans").fetchone()[0]
    registered = db.execute("SELECT count(*) FROM rederive_records").fetchone()[0]
    db.close()
    if total != count or registered != count:
        raise SystemExit(f"{path}: {total} rows, {registered} registered, expected {count}")


if __name__ == "__main__":
    main()
