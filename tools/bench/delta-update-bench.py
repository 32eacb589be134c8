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

from bench_common import BINARY, ENV, ROOT, WORK, run, start_portal  # beside this script

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
    home = ENV["MAPBOOK_HOME"]
    item = json.loads(run(BINARY, "portal", "publish", v1, "--json"))["itemId"]
    run(BINARY, "portal", "download", item)
    held = os.path.join(home, "downloads", item + ".mmpk")
    kept = os.path.join(WORK, "held-v1.mmpk")
    shutil.copy(held, kept)
    shutil.copy(os.path.join(home, "downloads", item + ".json"), kept + ".json")
    run(BINARY, "portal", "publish", v2, "--json")

    deltas, wholes, fetched = [], [], []
    for _ in range(5):
        shutil.copy(kept, held)
        shutil.copy(kept + ".json", os.path.join(home, "downloads", item + ".json"))
        start = time.perf_counter()
        report = json.loads(run(BINARY, "portal", "update", item, "--json"))
        deltas.append(time.perf_counter() - start)
        outcome = report["updated"][0]
        assert outcome["delta"] and outcome["fileBytes"] == size, outcome
        fetched.append(outcome["fetchedBytes"])
        assert open(held, "rb").read() == open(v2, "rb").read(), "the update must give version 2 byte for byte"

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
    kept_v2 = os.path.join(WORK, "held-v2.mmpk")
    shutil.copy(held, kept_v2)
    shutil.copy(os.path.join(home, "downloads", item + ".json"), kept_v2 + ".json")
    from_sync = json.loads(run(BINARY, "portal", "publish", "--from-sync", item, "--json"))
    synced_fetched, synced_times = [], []
    for _ in range(5):
        shutil.copy(kept_v2, held)
        shutil.copy(kept_v2 + ".json", os.path.join(home, "downloads", item + ".json"))
        start = time.perf_counter()
        outcome = json.loads(run(BINARY, "portal", "update", item, "--json"))["updated"][0]
        synced_times.append(time.perf_counter() - start)
        assert outcome["delta"], outcome
        synced_fetched.append(outcome["fetchedBytes"])
    synced_size = from_sync["size"]

    other = dict(ENV, MAPBOOK_HOME=os.path.join(WORK, "home-whole"))
    for _ in range(5):
        shutil.rmtree(other["MAPBOOK_HOME"], ignore_errors=True)
        subprocess.run([BINARY, "portal", "signin", origin, "--user", "alice", "--password-stdin", "--ca-cert", os.path.join(data, "tls/certificate.pem")],
                       input="bench-password-1\n", text=True, env=other, check=True, capture_output=True)
        start = time.perf_counter()
        subprocess.run([BINARY, "portal", "download", item], env=other, check=True, capture_output=True)
        wholes.append(time.perf_counter() - start)
finally:
    server.terminate()

literal, rsync_times = [], []
for _ in range(5):
    target = os.path.join(WORK, "rsync")
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(target)
    shutil.copy(v1, os.path.join(target, "Naperville.mmpk"))
    start = time.perf_counter()
    out = subprocess.run(["rsync", "--no-whole-file", "--stats", v2, target + "/"], check=True, capture_output=True, text=True).stdout
    rsync_times.append(time.perf_counter() - start)
    literal.append(int(re.search(r"Literal data: ([\d,]+)", out).group(1).replace(",", "")))

med = lambda xs: sorted(xs)[len(xs) // 2]
print(f"package version 2: {size:,} bytes; 10 of {len(mains['features'])} mains changed\n")
print("| Way | Bytes fetched | Share of the file | Median time (5 runs) |")
print("|:---|---:|---:|---:|")
print(f"| `mapbook portal update` (delta) | {med(fetched):,} | {100 * med(fetched) / size:.2f} % | {med(deltas) * 1000:.0f} ms |")
print(f"| `mapbook portal download` (whole) | {size:,} | 100 % | {med(wholes) * 1000:.0f} ms |")
print(f"| `rsync --no-whole-file` (literal data, local) | {med(literal):,} | {100 * med(literal) / size:.2f} % | {med(rsync_times) * 1000:.0f} ms |")
print(f"\nversion 3, published from 10 valves edited in the field and synchronised: {synced_size:,} bytes\n")
print("| Way | Bytes fetched | Share of the file | Median time (5 runs) |")
print("|:---|---:|---:|---:|")
print(f"| `mapbook portal update` (delta, from version 2) | {med(synced_fetched):,} | {100 * med(synced_fetched) / synced_size:.2f} % | {med(synced_times) * 1000:.0f} ms |")
