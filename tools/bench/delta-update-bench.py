#!/usr/bin/env python3
"""An update by delta measured (issue 35), beside the whole download and rsync in one run.

The Naperville sample is built (version 1), published to `mapbook portal serve` on loopback
and downloaded; then 10 water mains get another material in the source GeoJSON, the package is
built again (version 2, same GUID) and published as the item's new version; and 10 valves
edited on a device, synchronised and published from the portal's copy (version 3). Then, 5
times each:

1. `mapbook portal update ITEM --json` on a library holding version 1 (reset before each run):
   the layout read, version 1 read, the changed bytes fetched by ranged requests, the file
   built and checked; its `fetchedBytes` beside `fileBytes`;
2. `mapbook portal download ITEM` on an empty library: the whole file;
3. `mapbook portal update ITEM --json` from version 2 to version 3;
4. the peer: `rsync --no-whole-file --stats` of version 2 onto a copy of version 1 (rsync's
   own delta: "Literal data" is what it would send), both local, no network.

    .venv/bin/python tools/bench/delta-update-bench.py MAPBOOK_BINARY WORK_FOLDER

Prints a table for docs/PERFORMANCE.md. The binary should be a release build.
"""
import json, os, re, shutil, subprocess, sys, time

from bench_common import BINARY, ENV, ROOT, WORK, delta_table, delta_updates, keep_held, median, rsync_delta, run, start_portal, whole_downloads  # beside this script

sample = os.path.join(WORK, "naperville")
shutil.rmtree(sample, ignore_errors=True)
os.makedirs(sample)
subprocess.run([sys.executable, os.path.join(ROOT, "tools/samples/naperville.py"), sample], check=True, stdout=subprocess.DEVNULL)
for name in ("project.yaml", "search-quality.yaml"):
    shutil.copy(os.path.join(ROOT, "samples/naperville-water", name), sample)
v1, v2 = os.path.join(WORK, "v1", "Naperville.mmpk"), os.path.join(WORK, "v2", "Naperville.mmpk")
for path in (v1, v2):
    os.makedirs(os.path.dirname(path), exist_ok=True)
run(BINARY, "create", os.path.join(sample, "project.yaml"), "-o", v1, "--fixed-time", "2026-11-01T00:00:00Z")

# Ten mains change material: what a field survey would correct.
mains_path = os.path.join(sample, "data/mains.geojson")
with open(mains_path) as f:
    mains = json.load(f)
for feature in mains["features"][100:110]:
    feature["properties"]["MATERIAL"] = "PVC" if feature["properties"].get("MATERIAL") != "PVC" else "DIP"
with open(mains_path, "w") as f:
    json.dump(mains, f)
run(BINARY, "create", os.path.join(sample, "project.yaml"), "-o", v2, "--fixed-time", "2026-11-02T00:00:00Z")
size = os.path.getsize(v2)

server, origin, data = start_portal()
try:
    item = json.loads(run(BINARY, "portal", "publish", v1, "--json"))["itemId"]
    run(BINARY, "portal", "download", item)
    kept = keep_held(item, "held-v1.mmpk")
    run(BINARY, "portal", "publish", v2, "--json")
    deltas, fetched = delta_updates(item, kept, 5, expected=v2)

    # Field work: 10 valves edited on a device, synchronised, and published by the portal as
    # the next version (`publish --from-sync`); a device holding version 2 updates to it.
    sync_home = dict(ENV, MAPBOOK_HOME=os.path.join(WORK, "home-field"))
    shutil.rmtree(sync_home["MAPBOOK_HOME"], ignore_errors=True)
    def field(*arguments, **options):
        return subprocess.run([BINARY, *arguments], env=sync_home, check=True, capture_output=True, text=True, **options).stdout
    field("portal", "signin", origin, "--user", "alice", "--password-stdin", "--ca-cert", os.path.join(data, "tls/certificate.pem"), input="bench-password-1\n")
    field("portal", "download", item)
    field_pkg = os.path.join(sync_home["MAPBOOK_HOME"], "downloads", item + ".mmpk")
    for fid in range(1, 11):
        field("edit", "update", field_pkg, "--layer", "valves", str(fid), "--set", f"TURNS={40 + fid}")
    field("sync")
    kept_v2 = keep_held(item, "held-v2.mmpk")
    from_sync = json.loads(run(BINARY, "portal", "publish", "--from-sync", item, "--json"))
    synced_times, synced_fetched = delta_updates(item, kept_v2, 5)
    synced_size = from_sync["size"]

    wholes = whole_downloads(origin, data, item, 5)
finally:
    server.terminate()

literal, rsync_times = rsync_delta(v1, v2, 5)
med = median
print(f"package version 2: {size:,} bytes; 10 of {len(mains['features'])} mains changed\n")
delta_table(size, 5, [("`mapbook portal update` (delta)", med(fetched), med(deltas)), ("`mapbook portal download` (whole)", size, med(wholes)),
                      ("`rsync --no-whole-file` (literal data, local)", med(literal), med(rsync_times))])
print(f"\nversion 3, published from 10 valves edited in the field and synchronised: {synced_size:,} bytes\n")
delta_table(synced_size, 5, [("`mapbook portal update` (delta, from version 2)", med(synced_fetched), med(synced_times))])
