#!/usr/bin/env python3
"""Writes the CSV files tools/bench/csv-vs-ogr.sh times: points with lon/lat columns and
polygons in a WKT column, with integer, real, date, date-time and quoted text fields.

    make-csv.py DIR [POINT_ROWS] [POLYGON_ROWS]
"""
import csv, math, random, sys, os

out = sys.argv[1]
points = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
polygons = int(sys.argv[3]) if len(sys.argv) > 3 else 100_000
os.makedirs(out, exist_ok=True)
rng = random.Random(42)
kinds = ["hydrant", "valve", "meter", "manhole, storm", 'tap "B"', "inlet"]

with open(os.path.join(out, "points.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["id", "name", "lon", "lat", "kind", "value", "count", "installed", "inspected", "zip"])
    for i in range(points):
        w.writerow([
            i + 1, f"Asset {i + 1}", f"{rng.uniform(-88.3, -88.0):.7f}", f"{rng.uniform(41.6, 41.9):.7f}",
            kinds[i % len(kinds)], f"{rng.uniform(0, 1000):.3f}", rng.randint(0, 5000),
            f"{1950 + i % 70}-{1 + i % 12:02d}-{1 + i % 28:02d}",
            f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:00Z", f"{60500 + i % 99:05d}",
        ])

with open(os.path.join(out, "polygons.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["id", "WKT", "area", "label"])
    for i in range(polygons):
        cx, cy, r = rng.uniform(-88.3, -88.0), rng.uniform(41.6, 41.9), rng.uniform(0.0005, 0.002)
        ring = [(cx + r * math.cos(2 * math.pi * k / 24), cy + r * math.sin(2 * math.pi * k / 24)) for k in range(24)]
        ring.append(ring[0])
        wkt = "POLYGON ((" + ", ".join(f"{x:.7f} {y:.7f}" for x, y in ring) + "))"
        w.writerow([i + 1, wkt, f"{math.pi * r * r:.10f}", f"Parcel {i + 1}"])
