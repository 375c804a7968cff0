#!/usr/bin/env python3
"""Rewrites a derived RoomScan database's values as an older logic would have written them, so that
a dry run after `rederive invalidate` has changes to show: floor areas a few per cent low and every
fiftieth a hundred times too small, one wall fewer in every seventh room, section labels in capitals
in every fifth.

    report-older-values.py DATABASE
"""
import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE room_scans_derived SET floor_area_sqm = floor_area_sqm * CASE WHEN id % 50 = 0 THEN 0.01 ELSE 0.97 + (id % 7) * 0.01 END")
db.execute("UPDATE room_scans_derived SET wall_count = wall_count - 1 WHERE id % 7 = 0")
db.execute("UPDATE room_scans_derived SET section_labels = upper(section_labels) WHERE id % 5 = 0")
db.commit()
