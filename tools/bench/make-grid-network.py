#!/usr/bin/env python3
"""A city-like street grid for the routing benchmark (issue 18), as GeoJSON lines.

    python3 tools/bench/make-grid-network.py OUT.geojson [EDGES]

About EDGES block-long lines (default 1,000,000) on a square grid of about 100 m blocks near
Chicago: local streets at 40 km/h, every eighth street an arterial at 60 km/h, every 32nd a
highway-like road at 90 km/h; one local street in six one-way (alternating direction, as
couplets are); one block in twenty missing (a park, a railway), so routes detour; vertices
jittered by up to 5 m. Each line is one block: the lines meet at their ends, as a street
layer split at intersections does. Fields: name, class, oneway (FT, TF, B), speed (km/h).
The same arguments always give the same file.
"""
import json
import math
import random
import sys


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 64
    out, edges = argv[1], int(argv[2]) if len(argv) > 2 else 1_000_000
    # Enough rows and columns that the lines left after the missing blocks reach EDGES.
    n = int(math.sqrt(edges / (2 * 0.94))) + 2
    rng = random.Random(18)
    lon0, lat0 = -87.9, 41.6
    dlat = 100 / 111_195.0
    dlon = 100 / (111_195.0 * math.cos(math.radians(lat0 + n * dlat / 2)))
    jitter = [[(rng.uniform(-5, 5) / 111_195.0, rng.uniform(-5, 5) / 111_195.0) for _ in range(n)] for _ in range(n)]

    def point(i, j):
        jx, jy = jitter[i][j]
        return [round(lon0 + j * dlon + jx, 7), round(lat0 + i * dlat + jy, 7)]

    def kind(k):
        if k % 32 == 0:
            return "highway", 90
        if k % 8 == 0:
            return "arterial", 60
        return "local", 40

    written = 0
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        f.write('{"type":"FeatureCollection","features":[\n')
        first = True
        for i in range(n):
            for j in range(n):
                for horizontal in (True, False):
                    if written >= edges:
                        break
                    ni, nj = (i, j + 1) if horizontal else (i + 1, j)
                    if ni >= n or nj >= n or rng.random() < 0.05:
                        continue
                    k = i if horizontal else j
                    cls, speed = kind(k)
                    oneway = "B"
                    if cls == "local" and k % 6 == 3:
                        oneway = "FT" if (k // 6) % 2 == 0 else "TF"
                    name = f"{'W' if horizontal else 'N'} {k}{'th' if k % 10 not in (1, 2, 3) or k % 100 in (11, 12, 13) else ['st', 'nd', 'rd'][k % 10 - 1]} {'St' if horizontal else 'Ave'}"
                    feature = {"type": "Feature", "properties": {"name": name, "class": cls, "oneway": oneway, "speed": speed},
                               "geometry": {"type": "LineString", "coordinates": [point(i, j), point(ni, nj)]}}
                    f.write(("" if first else ",\n") + json.dumps(feature, separators=(",", ":")))
                    first = False
                    written += 1
        f.write("\n]}\n")
    import os
    os.replace(tmp, out)
    print(f"{out}: {written} lines on a {n} x {n} grid", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
