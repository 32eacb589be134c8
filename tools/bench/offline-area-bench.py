#!/usr/bin/env python3
"""A map area taken offline measured (issue 33), beside GDAL in the same run.

The Naperville sample (tools/samples/naperville.py, samples/naperville-water) is published
to `mapbook portal serve` on loopback; then, 5 times each:

1. `mapbook library take-offline WEBMAP --area W,S,E,N --max-scale 2000` of a 5 km x 5 km box
   centred on the sample (the whole town: every feature, every tile), end to end: the job on
   the portal (the copy exported, cut, backdrop and relief tiles cut, locators and the
   package made, validated and stored as an item) and the download into the library;
2. the job alone, from `submitJob` to `esriJobSucceeded` (polled every 50 ms);
3. a 1.5 km x 1.5 km box in the town's centre, the job alone;
4. the peer: GDAL's `ogr2ogr -spat` cutting the same package's data.gpkg to the 5 km box
   (every feature layer, to a new GeoPackage): the data part of the work only, as GDAL has
   no tile or locator cut.

    .venv/bin/python tools/bench/offline-area-bench.py MAPBOOK_BINARY WORK_FOLDER

Prints a table for docs/PERFORMANCE.md. The binary should be a release build.
"""
import json, math, os, re, shutil, ssl, subprocess, sys, time, urllib.parse, urllib.request, zipfile

from bench_common import BINARY, ENV, ROOT, WORK, percentile, run, start_portal  # beside this script

sample = os.path.join(WORK, "naperville")
package = os.path.join(WORK, "Naperville.mmpk")
if not os.path.exists(package):
    os.makedirs(sample, exist_ok=True)
    subprocess.run([sys.executable, os.path.join(ROOT, "tools/samples/naperville.py"), sample], check=True, stdout=subprocess.DEVNULL)
    for name in ("project.yaml", "search-quality.yaml"):
        shutil.copy(os.path.join(ROOT, "samples/naperville-water", name), sample)
    run(BINARY, "create", os.path.join(sample, "project.yaml"), "-o", package)

info = json.loads(run(BINARY, "inspect", package, "--json"))
west, south, east, north = info["item"]["extent"]
cx, cy = (west + east) / 2, (south + north) / 2


def box(km):
    """A square of `km` kilometres centred on the town, as W,S,E,N degrees."""
    dlat = km / 2 / 111.32
    dlon = km / 2 / (111.32 * math.cos(math.radians(cy)))
    return [cx - dlon, cy - dlat, cx + dlon, cy + dlat]


server, origin, data = start_portal()
context = ssl._create_unverified_context()
rows = []
try:
    item = json.loads(run(BINARY, "portal", "publish", package, "--json"))["itemId"]
    with open(os.path.join(WORK, "home", "credential.json")) as f:
        token = json.load(f)["token"]

    def call(path, form=None):
        body = urllib.parse.urlencode(dict(form or {}, f="json", token=token)).encode()
        with urllib.request.urlopen(origin + path, data=body, context=context) as answer:
            return json.loads(answer.read())

    maps = call("/sharing/rest/search", {"q": 'type:"Web Map"'})["results"]
    webmap = maps[0]["id"]
    task = "/rest/services/System/OfflinePackaging/GPServer/PackageMap"

    def job(area):
        started = time.perf_counter()
        submitted = call(task + "/submitJob", {"webmapItemId": webmap, "areaOfInterest": ",".join(map(str, area)), "maxScale": "2000"})
        while True:
            state = call(f"{task}/jobs/{submitted['jobId']}")
            if state["jobStatus"] in ("esriJobSucceeded", "esriJobFailed"):
                break
            time.sleep(0.05)
        if state["jobStatus"] != "esriJobSucceeded":
            raise SystemExit(f"the job failed: {state['messages']}")
        return time.perf_counter() - started, [m["description"] for m in state["messages"]]

    five, small = box(5), box(1.5)
    end_to_end, jobs, smalls, peer = [], [], [], []
    for _ in range(5):
        started = time.perf_counter()
        out = json.loads(run(BINARY, "library", "take-offline", webmap, "--area=" + ",".join(map(str, five)), "--max-scale", "2000", "--json"))
        end_to_end.append(time.perf_counter() - started)
        size = out["size"]
        seconds, messages = job(five)
        jobs.append(seconds)
        seconds, small_messages = job(small)
        smalls.append(seconds)

    # The peer: ogr2ogr cutting the package's data to the same box.
    gpkg = os.path.join(WORK, "data.gpkg")
    with zipfile.ZipFile(package) as z:
        name = next(n for n in z.namelist() if n.endswith("/data.gpkg"))
        with z.open(name) as src, open(gpkg, "wb") as dst:
            shutil.copyfileobj(src, dst)
    listed = subprocess.run(["ogrinfo", "-ro", "-so", "-q", gpkg], check=True, capture_output=True, text=True).stdout
    layers = [m.group(1) for m in re.finditer(r"^\d+: (\S+) \((?!None)", listed, re.M)]
    for _ in range(5):
        out = os.path.join(WORK, "cut.gpkg")
        if os.path.exists(out):
            os.remove(out)
        started = time.perf_counter()
        # The feature layers by name: GDAL 3.6 crashes on -spat_srs with the attribute table.
        subprocess.run(["ogr2ogr", "-f", "GPKG", "-spat", *map(str, five), "-spat_srs", "EPSG:4326", out, gpkg, *layers], check=True, capture_output=True)
        peer.append(time.perf_counter() - started)

    def line(what, values, note=""):
        rows.append(f"| {what} | {statistics_text(values)} | {note} |")

    def statistics_text(values):
        return f"{percentile(values, 50):.2f} s (min {min(values):.2f}, max {max(values):.2f})"

    line("take-offline 5 km x 5 km, end to end (job + download)", end_to_end, f"package {size / 1e6:.1f} MB")
    line("PackageMap job 5 km x 5 km", jobs, "; ".join(m for m in messages if m.startswith("Kept")))
    line("PackageMap job 1.5 km x 1.5 km", smalls, "; ".join(m for m in small_messages if m.startswith("Kept")))
    line("peer: ogr2ogr -spat, data.gpkg only, 5 km x 5 km", peer, "every layer to a new GeoPackage")
finally:
    server.terminate()
    server.wait()

print("| measure (5 runs) | median | notes |")
print("|---|---|---|")
for row in rows:
    print(row)
