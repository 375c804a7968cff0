#!/usr/bin/env python3
"""Computes the RoomScan pipeline's columns for every RoomPlan export in roomplan/.

This is the independent reference the Swift tests compare against: it shares no code with the
Swift implementation and follows the column definitions literally. It writes expected.json next
to this script, with the values for each export as-is ("fixtures") and for its iOS 16 style
variant ("ios16_variants": no floors, sections, story, polygonCorners, parentIdentifier or
attributes), whose floor area therefore comes from the convex hull of the walls.

Run from anywhere with Python 3 and only the standard library:

    python3 Tests/RoomScanTests/Fixtures/expected_values.py
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EXPORTS = os.path.join(HERE, "roomplan")
OUTPUT = os.path.join(HERE, "expected.json")

IOS16_TOP_LEVEL_KEYS = ("floors", "sections", "story")
IOS16_ELEMENT_KEYS = ("story", "polygonCorners", "parentIdentifier", "attributes")


def shoelace_area(points):
    """Absolute area of a simple polygon given as (x, y) pairs."""
    twice = 0.0
    for i, (x1, y1) in enumerate(points):
        x2, y2 = points[(i + 1) % len(points)]
        twice += x1 * y2 - x2 * y1
    return abs(twice) / 2.0


def convex_hull(points):
    """Andrew's monotone chain; returns the hull's vertices counter-clockwise, without collinear ones."""
    pts = sorted(set(points))
    if len(pts) < 3:
        return pts

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def wall_endpoints(wall):
    t = wall["transform"]
    half = wall["dimensions"][0] / 2.0
    cx, cz = t[12], t[14]
    dx, dz = t[0], t[2]
    return [(cx - dx * half, cz - dz * half), (cx + dx * half, cz + dz * half)]


def floor_area(room):
    floors = room.get("floors") or []
    if floors:
        total = 0.0
        for floor in floors:
            corners = floor.get("polygonCorners") or []
            if len(corners) >= 3:
                total += shoelace_area([(c[0], c[1]) for c in corners])
            else:
                total += floor["dimensions"][0] * floor["dimensions"][1]
        return total
    points = [p for wall in room.get("walls") or [] for p in wall_endpoints(wall)]
    hull = convex_hull(points)
    return shoelace_area(hull) if len(hull) >= 3 else 0.0


def median(values):
    values = sorted(values)
    n = len(values)
    if n == 0:
        return 0.0
    if n % 2:
        return values[n // 2]
    return (values[n // 2 - 1] + values[n // 2]) / 2.0


def compact_json(value):
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def columns(room):
    walls = room.get("walls") or []
    categories = {}
    for obj in room.get("objects") or []:
        (name,) = obj["category"].keys()
        categories[name] = categories.get(name, 0) + 1
    return {
        "floor_area_sqm": floor_area(room),
        "wall_count": len(walls),
        "door_count": len(room.get("doors") or []),
        "window_count": len(room.get("windows") or []),
        "opening_count": len(room.get("openings") or []),
        "object_count": len(room.get("objects") or []),
        "wall_length_m": sum(w["dimensions"][0] for w in walls),
        "ceiling_height_m": median([w["dimensions"][1] for w in walls]),
        "object_categories": compact_json(categories),
        "section_labels": compact_json([s["label"] for s in room.get("sections") or []]),
    }


def ios16_variant(room):
    """The same room as an iOS 16 export would describe it."""
    variant = {k: v for k, v in room.items() if k not in IOS16_TOP_LEVEL_KEYS}
    for key, value in variant.items():
        if isinstance(value, list):
            variant[key] = [
                {k: v for k, v in element.items() if k not in IOS16_ELEMENT_KEYS}
                if isinstance(element, dict) else element
                for element in value
            ]
    return variant


def main():
    names = sorted(n for n in os.listdir(EXPORTS) if n.endswith(".json"))
    fixtures, variants = {}, {}
    for name in names:
        with open(os.path.join(EXPORTS, name), "rb") as f:
            room = json.loads(f.read())
        fixtures[name] = columns(room)
        variants[name] = columns(ios16_variant(room))
    with open(OUTPUT, "w") as f:
        json.dump({"fixtures": fixtures, "ios16_variants": variants}, f, indent=2, sort_keys=True)
        f.write("\n")
    print(f"wrote {len(names)} exports to {os.path.relpath(OUTPUT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
