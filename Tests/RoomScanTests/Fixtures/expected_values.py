#!/usr/bin/env python3
"""Computes the RoomScan pipeline's columns for every RoomPlan export in roomplan/.

This is the independent reference the Swift tests compare against: it shares no code with the
Swift implementation and follows the column definitions literally. It writes expected.json next
to this script, with the values for each export as-is ("fixtures") and for its iOS 16 style
variant ("ios16_variants": no floors, sections, story, polygonCorners, parentIdentifier or
attributes), whose floor area therefore comes from the convex hull of the walls.

`room_type` is the only column computed from other columns rather than from the export: it reads
the values of floor_area_sqm, object_categories and section_labels back, as the Swift pipeline does.

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


SECTION_ROOM_TYPES = {
    "livingRoom": "living_room",
    "bedroom": "bedroom",
    "bathroom": "bathroom",
    "kitchen": "kitchen",
    "diningRoom": "dining_room",
}


def room_type(floor_area_sqm, object_categories, section_labels):
    """The room type from three column values, each None for NULL; the first rule that matches wins."""
    labels = set(json.loads(section_labels)) if section_labels is not None else set()
    counts = json.loads(object_categories) if object_categories is not None else {}

    def has(category, at_least=1):
        return counts.get(category, 0) >= at_least

    identified = labels - {"unidentified"}
    if len(identified) == 1:
        (label,) = identified
        return SECTION_ROOM_TYPES.get(label, label.lower())
    if has("bed"):
        return "bedroom"
    if has("toilet") or has("bathtub"):
        return "bathroom"
    if any(has(c) for c in ("stove", "oven", "refrigerator", "dishwasher")):
        return "kitchen"
    if any(has(c) for c in ("sofa", "television", "fireplace")):
        return "living_room"
    if has("table") and has("chair", 2):
        return "dining_room"
    if floor_area_sqm is not None and floor_area_sqm < 4.0:
        return "closet"
    return "other"


def columns(room):
    walls = room.get("walls") or []
    categories = {}
    for obj in room.get("objects") or []:
        (name,) = obj["category"].keys()
        categories[name] = categories.get(name, 0) + 1
    values = {
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
    values["room_type"] = room_type(values["floor_area_sqm"], values["object_categories"], values["section_labels"])
    return values


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
