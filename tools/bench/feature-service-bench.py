#!/usr/bin/env python3
"""The portal's feature service measured (issue 33), beside PostGIS in the same run:

1. `query` by envelope returning about 1,000 of 1,000,000 points (tools/bench/make-points-
   geojson.py, an editable layer in Web Mercator) as JSON with every field: 200 envelopes
   (fixed random centres, each grown until it holds 900 to 1,100 points), one request at a
   time over a kept-alive HTTPS connection to `mapbook portal serve`; beside the same
   envelopes through PostgreSQL 15 + PostGIS (Debian's; the points loaded with ogr2ogr from the
   package's data.gpkg, GiST-indexed), each answered as the same JSON (json_agg of attributes
   and ST_AsGeoJSON) in one psql session with \\timing.
2. `applyEdits` adding 100 points, 30 requests; beside PostGIS inserting the same 100 rows in
   one statement, 30 times.

    .venv/bin/python tools/bench/feature-service-bench.py MAPBOOK_BINARY WORK_FOLDER

Prints a table for docs/PERFORMANCE.md. The binary should be a release build
(`make release`).
"""
import http.client, json, math, os, random, re, shutil, sqlite3, ssl, subprocess, sys, time, urllib.parse, zipfile

from bench_common import BINARY, ENV, ROOT, WORK, percentile, run, start_portal  # beside this script


# The package: 1,000,000 editable points.
points_dir = os.path.join(WORK, "points")
package = os.path.join(WORK, "EditablePoints.mmpk")
if not os.path.exists(package):
    os.makedirs(points_dir, exist_ok=True)
    source = os.path.join(points_dir, "points.geojson")
    if not os.path.exists(source):
        subprocess.run([sys.executable, os.path.join(ROOT, "tools/bench/make-points-geojson.py"), source, "1000000"], check=True)
    with open(os.path.join(points_dir, "project.yaml"), "w") as f:
        f.write("title: Points\ncrs: EPSG:3857\nsources:\n  points:\n    path: points.geojson\n    title: Assets\n"
                "    edit: { fields: { value: { range: [0, 1000] } }, tracking: true }\n"
                "maps:\n  - name: Assets\n    layers:\n      - source: points\n        renderer: { simple: { color: \"#0072b2\", size: 4 } }\n")
    run(BINARY, "create", os.path.join(points_dir, "project.yaml"), "-o", package)

# A portal on loopback, the package published.
server, origin, data = start_portal()
port = int(origin.rsplit(":", 1)[1])
rows = []
pg_dir = os.path.join(WORK, "pg")
try:
    item = json.loads(run(BINARY, "portal", "publish", package, "--json"))["itemId"]
    with open(os.path.join(WORK, "home", "credential.json")) as f:
        token = json.load(f)["token"]
    layer = f"/rest/services/{item}/FeatureServer/0"
    context = ssl._create_unverified_context()
    connection = http.client.HTTPSConnection("127.0.0.1", port, context=context)

    def call(method, path, form=None):
        body = urllib.parse.urlencode(form) if form else None
        headers = {"Content-Type": "application/x-www-form-urlencoded"} if form else {}
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        return json.loads(response.read())

    # Envelopes of about 1,000 points, from the copy's R-tree.
    copy = os.path.join(data, "sync", item, "data.gpkg")
    db = sqlite3.connect(copy)
    rng = random.Random(33)
    total = db.execute("SELECT count(*) FROM rtree_points_geom").fetchone()[0]
    boxes = []
    while len(boxes) < 200:
        fid = rng.randint(1, total)
        x, y = db.execute("SELECT minx, miny FROM rtree_points_geom WHERE id = ?", (fid,)).fetchone()
        lo, hi = 10.0, 200_000.0
        for _ in range(40):
            half = (lo + hi) / 2
            n = db.execute("SELECT count(*) FROM rtree_points_geom WHERE minx <= ? AND maxx >= ? AND miny <= ? AND maxy >= ?",
                           (x + half, x - half, y + half, y - half)).fetchone()[0]
            if 900 <= n <= 1100:
                boxes.append((x - half, y - half, x + half, y + half, n))
                break
            lo, hi = (half, hi) if n < 900 else (lo, half)
    db.close()

    ours, sizes = [], []
    for (a, b, c, d, n) in boxes:
        path = f"{layer}/query?" + urllib.parse.urlencode({"geometry": f"{a},{b},{c},{d}", "geometryType": "esriGeometryEnvelope", "outFields": "*",
                                                           "resultRecordCount": "2000", "f": "json", "token": token})
        start = time.perf_counter()
        answer = call("GET", path)
        ours.append((time.perf_counter() - start) * 1000)
        # The R-tree's boxes are rounded outwards to 32-bit floats: a point on the edge may count.
        assert abs(len(answer["features"]) - n) <= 5, (len(answer["features"]), n)
        sizes.append(len(answer["features"]))

    adds = []
    for i in range(30):
        features = [{"attributes": {"name": f"Bench {i}-{j}", "kind": "valve", "value": j}, "geometry": {"x": -9.8e6 + j, "y": 5.1e6 + i}} for j in range(100)]
        start = time.perf_counter()
        answer = call("POST", f"{layer}/applyEdits", {"adds": json.dumps(features), "f": "json", "token": token})
        adds.append((time.perf_counter() - start) * 1000)
        assert all(r["success"] for r in answer["addResults"]), answer

    # PostGIS, in the same run.
    with zipfile.ZipFile(package) as z:
        entry = next(n for n in z.namelist() if n.endswith("data.gpkg"))
        z.extract(entry, points_dir)
    gpkg = os.path.join(points_dir, entry)
    shutil.rmtree(pg_dir, ignore_errors=True)
    url = subprocess.run([os.path.join(ROOT, "tools/pg/postgres.sh"), "start", pg_dir], check=True, capture_output=True, text=True).stdout.strip()
    pg_port = re.search(r":(\d+)/", url).group(1)
    psql = ["psql", "-h", "127.0.0.1", "-p", pg_port, "-U", "mapbook", "-d", "mapbook", "-q", "-v", "ON_ERROR_STOP=1"]
    subprocess.run(psql + ["-c", "CREATE EXTENSION postgis"], check=True, capture_output=True)
    subprocess.run(["ogr2ogr", "-f", "PostgreSQL", f"PG:host=127.0.0.1 port={pg_port} user=mapbook dbname=mapbook", gpkg, "points",
                    "-nln", "points", "-lco", "GEOMETRY_NAME=geom", "-lco", "FID=fid"], check=True, capture_output=True)
    subprocess.run(psql + ["-c", "VACUUM ANALYZE points"], check=True, capture_output=True)
    sql = os.path.join(WORK, "queries.sql")
    with open(sql, "w") as f:
        f.write("\\timing on\n\\o /dev/null\n")
        for (a, b, c, d, n) in boxes:
            f.write("SELECT json_build_object('features', json_agg(json_build_object('attributes', to_jsonb(p) - 'geom', 'geometry', ST_AsGeoJSON(p.geom)::json))) "
                    f"FROM points p WHERE p.geom && ST_MakeEnvelope({a}, {b}, {c}, {d}, 3857);\n")
        for i in range(30):
            values = ", ".join(f"('Bench {i}-{j}', 'valve', {j}, ST_SetSRID(ST_MakePoint({-9.8e6 + j}, {5.1e6 + i}), 3857))" for j in range(100))
            f.write(f"INSERT INTO points (name, kind, value, geom) VALUES {values};\n")
    out = subprocess.run(psql + ["-f", sql], check=True, capture_output=True, text=True).stdout
    times = [float(t) for t in re.findall(r"Time: ([\d.]+) ms", out)]
    theirs, inserts = times[:len(boxes)], times[len(boxes):]
    rows.append((f"query by envelope, {min(sizes)}-{max(sizes)} of 1,000,000 points, JSON, {len(boxes)} requests",
                 f"p50 {percentile(ours, 50):.1f} ms, p99 {percentile(ours, 99):.1f} ms",
                 f"PostGIS json_agg: p50 {percentile(theirs, 50):.1f} ms, p99 {percentile(theirs, 99):.1f} ms"))
    rows.append(("applyEdits, 100 points added, 30 requests", f"p50 {percentile(adds, 50):.1f} ms, p99 {percentile(adds, 99):.1f} ms",
                 f"PostGIS INSERT of 100 rows: p50 {percentile(inserts, 50):.1f} ms, p99 {percentile(inserts, 99):.1f} ms"))
finally:
    subprocess.run([os.path.join(ROOT, "tools/pg/postgres.sh"), "stop", pg_dir], capture_output=True)
    server.terminate()
    server.wait(timeout=30)

print("| what | mapbook portal | peer |")
print("|---|---|---|")
for row in rows:
    print("| " + " | ".join(row) + " |")
