#!/usr/bin/env python3
"""`mapbook serve` measured (issue 32), each figure beside a peer measured in the same run:

1. Page load: from navigation to the first idle map of the Naperville sample's 811 Map in
   headless Chromium (Debian's, through Playwright), cold (a new browser context each time),
   at 1280 x 800 and 360 x 740; 7 loads each, median and worst. Then suggestions: from a
   key typed to the list changed in the page, every prefix of three searches. No peer draws
   these pages; the figures stand against the issue's budgets (1.5 s, 50 ms).
2. Base map tiles read from the Compact Cache bundles in place, every tile of the sample's
   backdrop at zooms 12 to 16, under 50 concurrent connections for 10 s (wrk, 2 threads):
   requests a second and latency percentiles, beside nginx serving the same tiles as files
   exported with `mapbook tiles export` (the static-file peer).
3. Feature tiles made on request from 1,000,000 points (tools/bench/make-points-geojson.py):
   every tile holding points at zoom 8, and 1,000 such tiles (a fixed random sample) at zooms
   11 and 14, one request at a time over a kept-alive connection; beside PostGIS's ST_AsMVT
   over the same points in PostgreSQL 15 (Debian's postgresql-15-postgis-3, on loopback, the
   points loaded with ogr2ogr from the package's own data.gpkg, GiST-indexed), the same tiles
   in the same order in one psql session with \\timing.

    .venv/bin/python tools/bench/serve-bench.py MAPBOOK_BINARY WORK_FOLDER

Prints a table for docs/PERFORMANCE.md. The binary should be a release build
(`swift build -c release --product mapbook`).
"""
import http.client, json, math, os, random, re, shutil, signal, socket, statistics, subprocess, sys, time, zipfile

from bench_common import BINARY, ENV, ROOT, WORK, percentile, run  # beside this script


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Serve:
    def __init__(self, *packages):
        self.process = subprocess.Popen([BINARY, "serve", *packages, "--port", "0", "--stop-after", "3600"], env=ENV,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.origin = re.search(r"(http://[^/\s]+)", self.process.stdout.readline()).group(1)
        self.port = int(self.origin.rsplit(":", 1)[1])
        self.packages = json.loads(http_get(self.port, "/api/packages")[1])

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=30)


def http_get(port, path, connection=None):
    c = connection or http.client.HTTPConnection("127.0.0.1", port)
    c.request("GET", path)
    r = c.getresponse()
    body = r.read()
    return r.status, body


def tiles_covering(box, z):
    """The tiles at zoom z over a lon/lat box."""
    def tile(lon, lat):
        n = 2 ** z
        x = int((lon + 180) / 360 * n)
        y = int((1 - math.log(math.tan(math.radians(lat)) + 1 / math.cos(math.radians(lat))) / math.pi) / 2 * n)
        return min(max(x, 0), n - 1), min(max(y, 0), n - 1)
    x0, y1 = tile(box[0], box[1])
    x1, y0 = tile(box[2], box[3])
    return [(z, x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1)]


# MARK: - The Naperville sample

sample = os.path.join(WORK, "sample")
naperville = os.path.join(WORK, "Naperville.mmpk")
if not os.path.exists(naperville):
    os.makedirs(sample, exist_ok=True)
    subprocess.run([sys.executable, os.path.join(ROOT, "tools/samples/naperville.py"), sample], check=True, capture_output=True)
    for name in ("project.yaml", "search-quality.yaml"):
        shutil.copy(os.path.join(ROOT, "samples/naperville-water", name), sample)
    run(BINARY, "create", os.path.join(sample, "project.yaml"), "-o", naperville)

rows = []
server = Serve(naperville)
key = server.packages[0]["key"]

# MARK: 1. Page load

from playwright.sync_api import sync_playwright

with sync_playwright() as p:
    browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--enable-unsafe-swiftshader"])
    for width, height, size in [(1280, 800, "desktop"), (360, 740, "phone")]:
        times = []
        for _ in range(7):
            context = browser.new_context(viewport={"width": width, "height": height})
            page = context.new_page()
            start = time.perf_counter()
            page.goto(f"{server.origin}/packages/{key}/maps/1/")
            while not page.evaluate("() => Boolean(window.mapbook && window.mapbook.ready && window.mapbook.idle)"):
                time.sleep(0.01)
            times.append(time.perf_counter() - start)
            context.close()
        rows.append((f"page load to the first idle map, {size} {width}x{height}", f"median {statistics.median(times):.2f} s, worst {max(times):.2f} s", "(budget 1.5 s)"))
    # Suggestions: from a key typed to the list shown in the page, each prefix of three
    # searches a crew types, timed in the page (performance.now) as the list changes.
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"{server.origin}/packages/{key}/maps/1/")
    while not page.evaluate("() => Boolean(window.mapbook && window.mapbook.ready && window.mapbook.idle)"):
        time.sleep(0.01)
    latencies = []
    for query in ["484 W Spring Ave", "WM-00210", "Washington St"]:
        for i in range(1, len(query) + 1):
            latencies.append(page.evaluate("""async (text) => {
                const input = document.getElementById('search-input');
                const start = performance.now();
                input.value = text;
                input.dispatchEvent(new Event('input'));
                // The page says whose suggestions it shows once they are in the list.
                while (window.mapbook.suggestedFor !== text && performance.now() - start < 2000) await new Promise(r => setTimeout(r, 0));
                return performance.now() - start; }""", query[:i]))
    rows.append((f"suggestions, key to list in the page, {len(latencies)} keystrokes", f"median {statistics.median(latencies):.0f} ms, p95 {percentile(latencies, 95):.0f} ms, worst {max(latencies):.0f} ms", "(budget 50 ms)"))
    browser.close()

# MARK: 2. Base map tiles under 50 connections

info = json.loads(http_get(server.port, f"/api/packages/{key}/maps/1?width=1024&height=768")[1])
box = info["bounds"]
paths = []
base = f"/packages/{key}/maps/1/basemaps/0/tiles"
for z in range(12, 17):
    paths += [f"{base}/{z}/{x}/{y}.pbf" for z, x, y in tiles_covering(box, z)]
present = [p for p in paths if http_get(server.port, p)[0] == 200]

exported = os.path.join(WORK, "tiles")
if not os.path.isdir(exported):
    run(BINARY, "tiles", "export", naperville, "--format", "dir", "--output", exported)
lua = os.path.join(WORK, "tiles.lua")


def wrk(origin, tile_paths):
    with open(lua, "w") as f:
        f.write("local paths = {" + ",".join(json.dumps(p) for p in tile_paths) + "}\n")
        f.write("local i = 0\nrequest = function()\n  i = i % #paths + 1\n  return wrk.format('GET', paths[i], {['Accept-Encoding'] = 'gzip'})\nend\n")
    out = subprocess.run(["wrk", "-t2", "-c50", "-d10s", "--latency", "-s", lua, origin], capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    def ms(label):
        m = re.search(rf"\s{label}%\s+([\d.]+)(us|ms|s)", out)
        value, unit = float(m.group(1)), m.group(2)
        return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value
    return rate, ms("50"), ms("99")


rate, p50, p99 = wrk(server.origin, present)
# nginx, serving the exported files with gzip as they are stored (the tiles are gzipped already).
nginx_dir = os.path.join(WORK, "nginx")
os.makedirs(nginx_dir, exist_ok=True)
nginx_port = free_port()
with open(os.path.join(nginx_dir, "nginx.conf"), "w") as f:
    f.write(f"""worker_processes 2; daemon off; pid {nginx_dir}/nginx.pid; error_log {nginx_dir}/error.log;
events {{ worker_connections 1024; }}
http {{ access_log off; sendfile on; keepalive_requests 100000;
  server {{ listen 127.0.0.1:{nginx_port};
    location /t/ {{ alias {exported}/; default_type application/vnd.mapbox-vector-tile; add_header Content-Encoding gzip; }} }} }}
""")
nginx = subprocess.Popen(["nginx", "-c", os.path.join(nginx_dir, "nginx.conf"), "-p", nginx_dir], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(1)
suffix = ".pbf" if any(name.endswith(".pbf") for _, _, files in os.walk(exported) for name in files) else ".mvt"
nginx_paths = ["/t/" + p[len(base) + 1:].replace(".pbf", suffix) for p in present]
n_rate, n_p50, n_p99 = wrk(f"http://127.0.0.1:{nginx_port}", nginx_paths)
nginx.send_signal(signal.SIGQUIT)
nginx.wait(timeout=10)
rows.append((f"base map tiles, {len(present)} tiles z12-16, 50 connections", f"{rate:,.0f} req/s, p50 {p50:.2f} ms, p99 {p99:.2f} ms",
             f"nginx (files): {n_rate:,.0f} req/s, p50 {n_p50:.2f} ms, p99 {n_p99:.2f} ms"))
server.stop()

# MARK: 3. Feature tiles from 1,000,000 points, beside PostGIS

points_dir = os.path.join(WORK, "points")
points = os.path.join(WORK, "Points.mmpk")
if not os.path.exists(points):
    os.makedirs(points_dir, exist_ok=True)
    subprocess.run([sys.executable, os.path.join(ROOT, "tools/bench/make-points-geojson.py"), os.path.join(points_dir, "points.geojson"), "1000000"], check=True)
    with open(os.path.join(points_dir, "project.yaml"), "w") as f:
        f.write("title: Points\ncrs: EPSG:3857\nsources:\n  points: { path: points.geojson, title: Assets }\n"
                "maps:\n  - name: Assets\n    layers:\n      - source: points\n        renderer: { simple: { color: \"#0072b2\", size: 4 } }\n")
    run(BINARY, "create", os.path.join(points_dir, "project.yaml"), "-o", points)

server = Serve(points)
pkey = server.packages[0]["key"]
with zipfile.ZipFile(points) as z:
    gpkg_entry = next(n for n in z.namelist() if n.endswith("data.gpkg"))
    z.extract(gpkg_entry, points_dir)
gpkg = os.path.join(points_dir, gpkg_entry)

# The tiles that hold points, from the points themselves (sqlite3 reads the R-tree's boxes).
import sqlite3
db = sqlite3.connect(gpkg)
table = next(r[0] for r in db.execute("SELECT table_name FROM gpkg_contents WHERE data_type = 'features'"))
rtree = f"rtree_{table}_geom"
half = 20037508.342789244
occupied = {8: set(), 11: set(), 14: set()}
for minx, miny in db.execute(f"SELECT minx, miny FROM \"{rtree}\""):
    for z in occupied:
        n = 2 ** z
        occupied[z].add((int((minx + half) / (2 * half) * n), int((half - miny) / (2 * half) * n)))
db.close()
rng = random.Random(32)
chosen = {8: sorted(occupied[8])}
for z in (11, 14):
    chosen[z] = rng.sample(sorted(occupied[z]), min(1000, len(occupied[z])))

pg_dir = os.path.join(WORK, "pg")
shutil.rmtree(pg_dir, ignore_errors=True)
url = subprocess.run([os.path.join(ROOT, "tools/pg/postgres.sh"), "start", pg_dir], check=True, capture_output=True, text=True).stdout.strip()
pg_port = re.search(r":(\d+)/", url).group(1)
psql = ["psql", "-h", "127.0.0.1", "-p", pg_port, "-U", "mapbook", "-d", "mapbook", "-q", "-v", "ON_ERROR_STOP=1"]
try:
    subprocess.run(psql + ["-c", "CREATE EXTENSION postgis"], check=True, capture_output=True)
    subprocess.run(["ogr2ogr", "-f", "PostgreSQL", f"PG:host=127.0.0.1 port={pg_port} user=mapbook dbname=mapbook", gpkg, table,
                    "-nln", "points", "-lco", "GEOMETRY_NAME=geom", "-lco", "FID=fid"], check=True, capture_output=True)
    subprocess.run(psql + ["-c", "VACUUM ANALYZE points"], check=True, capture_output=True)
    for z in (8, 11, 14):
        tiles = chosen[z]
        # Ours: one request at a time on a kept-alive connection.
        connection = http.client.HTTPConnection("127.0.0.1", server.port)
        ours = []
        for x, y in tiles:
            start = time.perf_counter()
            status, body = http_get(server.port, f"/packages/{pkey}/maps/1/layers/points/tiles/{z}/{x}/{y}.pbf", connection)
            ours.append((time.perf_counter() - start) * 1000)
        # PostGIS: the same tiles in one session, each timed by psql.
        sql = os.path.join(WORK, f"tiles-{z}.sql")
        with open(sql, "w") as f:
            f.write("\\timing on\n")
            for x, y in tiles:
                f.write(f"SELECT length(ST_AsMVT(q, 'points', 4096, 'geom', 'fid')) FROM (SELECT fid, ST_AsMVTGeom(geom, ST_TileEnvelope({z},{x},{y}), 4096, 64, true) AS geom "
                        f"FROM points WHERE geom && ST_TileEnvelope({z},{x},{y}, margin => 64.0 / 4096)) q;\n")
        out = subprocess.run(psql + ["-f", sql], check=True, capture_output=True, text=True).stdout
        theirs = [float(t) for t in re.findall(r"Time: ([\d.]+) ms", out)]
        rows.append((f"feature tiles from 1,000,000 points, zoom {z}, {len(tiles)} tiles", f"p50 {percentile(ours, 50):.1f} ms, p99 {percentile(ours, 99):.1f} ms",
                     f"PostGIS ST_AsMVT: p50 {percentile(theirs, 50):.1f} ms, p99 {percentile(theirs, 99):.1f} ms"))
finally:
    subprocess.run([os.path.join(ROOT, "tools/pg/postgres.sh"), "stop", pg_dir], capture_output=True)
    server.stop()

print("| what | mapbook serve | peer |")
print("|---|---|---|")
for row in rows:
    print("| " + " | ".join(row) + " |")
