#!/usr/bin/env python3
"""Writes a deterministic GeoJSON FeatureCollection of N points with a few attributes
(id, name, kind, value, date), spread over the contiguous United States with clusters, for
the import benchmark. Usage: make-points-geojson.py OUT.geojson [N]"""
import random
import sys

out, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
rng = random.Random(20261122)
kinds = ["hydrant", "valve", "meter", "manhole", "pole", "tree", "sign", "bench"]
centres = [(rng.uniform(-124, -68), rng.uniform(26, 48)) for _ in range(200)]
with open(out + ".tmp", "w", encoding="utf-8") as f:
    f.write('{"type":"FeatureCollection","features":[\n')
    for i in range(n):
        cx, cy = centres[i % len(centres)]
        x = round(cx + rng.gauss(0, 0.4), 6)
        y = round(cy + rng.gauss(0, 0.3), 6)
        sep = ",\n" if i else ""
        f.write(f'{sep}{{"type":"Feature","properties":{{"id":{i + 1},"name":"Asset {i + 1:07d}",'
                f'"kind":"{kinds[i % len(kinds)]}","value":{round(rng.uniform(0, 1000), 2)},'
                f'"installed":"{2000 + i % 25}-{1 + i % 12:02d}-{1 + i % 28:02d}"}},'
                f'"geometry":{{"type":"Point","coordinates":[{x},{y}]}}}}')
    f.write("\n]}\n")
import os
os.replace(out + ".tmp", out)
