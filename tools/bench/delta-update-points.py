#!/usr/bin/env python3
"""An update by delta of a large package (issue 35): N generated points (1,000,000 by
default) with a search locator and a backdrop tiled from them (zooms 0-10), built twice with
1 % of the features given another value and kind; both published to `mapbook portal serve`
on loopback. Then, 3 times each:

1. `mapbook portal update ITEM --json` on a library holding version 1: its `fetchedBytes`
   beside `fileBytes`, and the time;
2. `mapbook portal download ITEM` on an empty library: the whole file;
3. the peer: `rsync --no-whole-file --stats` of version 2 onto a copy of version 1 (its
   literal data is what it would send), both local, no network.

    .venv/bin/python tools/bench/delta-update-points.py MAPBOOK_BINARY WORK_FOLDER [N]

Also prints how long the portal took to store version 2 (its layout and patches included).
The binary should be a release build.
"""
import json, os, re, shutil, subprocess, sys, time

from bench_common import BINARY, ENV, ROOT, WORK, delta_table, delta_updates, keep_held, median, rsync_delta, run, start_portal, whole_downloads  # beside this script

n = int(sys.argv[3]) if len(sys.argv) > 3 else 1_000_000
points = os.path.join(WORK, "points.geojson")
if not os.path.exists(points) or os.path.getsize(points) == 0:
    subprocess.run([sys.executable, os.path.join(ROOT, "tools/bench/make-points-geojson.py"), points, str(n)], check=True)
with open(os.path.join(WORK, "project.yaml"), "w") as f:
    f.write("""title: Delta benchmark
name: DeltaBench
crs: EPSG:3857
extent: auto
sources:
  points:
    path: points.geojson
    search: { field: name, output_fields: [kind, value] }
maps:
  - name: Assets
    layers: [points]
backdrop:
  title: Assets Backdrop
  minzoom: 0
  maxzoom: 10
  layers:
    - source: points
""")
v1, v2 = os.path.join(WORK, "v1.mmpk"), os.path.join(WORK, "v2.mmpk")
start = time.perf_counter()
run(BINARY, "create", os.path.join(WORK, "project.yaml"), "-o", v1, "--fixed-time", "2026-11-01T00:00:00Z")
build = time.perf_counter() - start

# 1 % of the features changed: every hundredth point gets another value and kind, as a
# season's survey would correct them.
with open(points) as f:
    collection = json.load(f)
for feature in collection["features"][::100]:
    feature["properties"]["value"] = round(feature["properties"]["value"] + 1.5, 2)
    feature["properties"]["kind"] = "surveyed"
changed = len(collection["features"][::100])
source2 = os.path.join(WORK, "v2-source")
os.makedirs(source2, exist_ok=True)
with open(os.path.join(source2, "points.geojson"), "w") as f:
    json.dump(collection, f)
del collection
shutil.copy(os.path.join(WORK, "project.yaml"), source2)
run(BINARY, "create", os.path.join(source2, "project.yaml"), "-o", v2, "--fixed-time", "2026-11-02T00:00:00Z")
size = os.path.getsize(v2)

server, origin, data = start_portal()
try:
    item = json.loads(run(BINARY, "portal", "publish", v1, "--json"))["itemId"]
    run(BINARY, "portal", "download", item)
    kept = keep_held(item, "held-v1.mmpk")
    start = time.perf_counter()
    run(BINARY, "portal", "publish", v2, "--json")
    publish = time.perf_counter() - start
    deltas, fetched = delta_updates(item, kept, 3, expected=v2)
    wholes = whole_downloads(origin, data, item, 3)
    index = [os.path.join(r, "patches.json") for r, _, fs in os.walk(data) if "patches.json" in fs]
    patches = json.load(open(index[0]))["patches"] if index else []
finally:
    server.terminate()

literal, rsync_times = rsync_delta(v1, v2, 3)
med = median
print(f"{n:,} points, {changed:,} changed; version 2: {size:,} bytes; one build {build:.1f} s; storing version 2 on the portal {publish:.1f} s\n")
delta_table(size, 3, [("`mapbook portal update` (delta)", med(fetched), med(deltas)), ("`mapbook portal download` (whole)", size, med(wholes)),
                      ("`rsync --no-whole-file` (literal data, local)", med(literal), med(rsync_times))])
print("\n| Entry | Size | Patch |")
print("|:---|---:|---:|")
for p in patches:
    print(f"| `{p['name']}` | {p['toSize']:,} | {p['size']:,} |")
