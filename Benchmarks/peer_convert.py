# The sqlite-utils peer: `sqlite-utils convert --multi DB room_scans payload "$(cat peer_convert.py)"`.
# Same definitions as the RoomScan pipeline (Pipelines/RoomScan, Tests/RoomScanTests/Fixtures/expected_values.py):
# floor area (floors' polygons or dimensions, else the convex hull of the walls' plan endpoints),
# wall count and object count.
import json
import zlib


def shoelace(points):
    twice = 0.0
    for i, (x1, y1) in enumerate(points):
        x2, y2 = points[(i + 1) % len(points)]
        twice += x1 * y2 - x2 * y1
    return abs(twice) / 2.0


def hull(points):
    pts = sorted(set(points))
    if len(pts) < 3:
        return pts

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def floor_area(room):
    floors = room.get("floors") or []
    if floors:
        total = 0.0
        for f in floors:
            corners = f.get("polygonCorners") or []
            if len(corners) >= 3:
                total += shoelace([(c[0], c[1]) for c in corners])
            else:
                total += f["dimensions"][0] * f["dimensions"][1]
        return total
    points = []
    for w in room.get("walls") or []:
        t, half = w["transform"], w["dimensions"][0] / 2.0
        points += [(t[12] - t[0] * half, t[14] - t[2] * half), (t[12] + t[0] * half, t[14] + t[2] * half)]
    h = hull(points)
    return shoelace(h) if len(h) >= 3 else 0.0


def convert(value):
    room = json.loads(zlib.decompress(value))
    return {
        "py_floor_area_sqm": floor_area(room),
        "py_wall_count": len(room.get("walls") or []),
        "py_object_count": len(room.get("objects") or []),
    }
