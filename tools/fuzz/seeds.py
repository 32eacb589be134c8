#!/usr/bin/env python3
"""Seed corpus for one fuzz target, from ../shared/fixtures (read in place, copied only into the
gitignored corpus folder) and from inputs this project makes itself.

  tools/fuzz/seeds.py TARGET FOLDER [--mapbook PATH]

Files over the target's size cap are left out (libFuzzer's -max_len is set from the seeds).
"""
import argparse, glob, io, json, os, shutil, subprocess, sys, tempfile, zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(os.path.dirname(ROOT), "shared", "fixtures")
SEPARATOR = b"#MAPBOOK-FUZZ#"
CAP = {"package": 1 << 20, "style": 512 << 10, "shapefile": 512 << 10}
DEFAULT_CAP = 256 << 10


def fixtures(*patterns):
    for pattern in patterns:
        yield from sorted(glob.glob(os.path.join(FIXTURES, pattern), recursive=True))


def entries(package, suffix):
    """The entries of `package` (a ZIP) whose names end in `suffix`, with their bytes."""
    if package and os.path.exists(package):
        with zipfile.ZipFile(package) as z:
            for name in z.namelist():
                if name.endswith(suffix):
                    yield name, z.read(name)


def tiny_package(mapbook, folder):
    """A small package made by `mapbook create`: points and lines, a locator, a backdrop."""
    work = tempfile.mkdtemp(prefix="mapbook-fuzz-seed-")
    try:
        points = {"type": "FeatureCollection", "features": [
            {"type": "Feature", "geometry": {"type": "Point", "coordinates": [-88.15 + i / 500, 41.75 + (i % 3) / 500]},
             "properties": {"FACILITYID": "V-%03d" % i, "TYPE": ["Gate", "Butterfly"][i % 2], "DIAMETER": 6 + i}} for i in range(12)]}
        lines = {"type": "FeatureCollection", "features": [
            {"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[-88.15, 41.75 + i / 400], [-88.13, 41.75 + i / 400]]},
             "properties": {"NAME": "Main %d" % i, "MATERIAL": ["PVC", "Cast Iron"][i % 2]}} for i in range(5)]}
        for name, data in (("valves.geojson", points), ("mains.geojson", lines)):
            with open(os.path.join(work, name), "w") as f:
                json.dump(data, f)
        with open(os.path.join(work, "project.yaml"), "w") as f:
            f.write("""title: Fuzz seed
summary: a small package for the fuzzers' seed corpus
tags: [fuzz]
sources:
  valves: { path: valves.geojson, search: { field: FACILITYID } }
  mains: { path: mains.geojson, search: { field: NAME } }
backdrop: { name: Reference, layers: [mains], minzoom: 10, maxzoom: 12 }
maps:
  - name: Valves
    layers:
      - { source: mains, renderer: { uniqueValue: { field: MATERIAL } } }
      - { source: valves, renderer: { uniqueValue: { field: TYPE } } }
    bookmarks: [ { name: Centre, extent: [-88.16, 41.74, -88.12, 41.77] } ]
expiration: { date: 2030-01-01, type: allowExpiredAccess, message: Ask for a new one }
""")
        out = os.path.join(folder, "tiny.mmpk")
        subprocess.run([mapbook, "create", os.path.join(work, "project.yaml"), "-o", out, "--fixed-time", "2026-01-01"],
                       check=True, stdout=subprocess.DEVNULL)
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("target")
    parser.add_argument("folder")
    parser.add_argument("--mapbook", default=os.path.join(ROOT, ".build", "debug", "mapbook"))
    parser.add_argument("--package", help="a package to take maps and a style from (the Naperville sample)")
    args = parser.parse_args()
    os.makedirs(args.folder, exist_ok=True)
    cap = CAP.get(args.target, DEFAULT_CAP)
    count = 0

    def add(name, data):
        nonlocal count
        if len(data) <= cap:
            with open(os.path.join(args.folder, name.replace("/", "_")), "wb") as f:
                f.write(data)
            count += 1

    def add_files(paths):
        for p in paths:
            with open(p, "rb") as f:
                add(os.path.relpath(p, FIXTURES), f.read())

    t = args.target
    if t == "package":
        package = tiny_package(args.mapbook, args.folder)
        count += 1
        # The same package with its entries deflated (readers must refuse, not crash), and
        # zipped shapefiles: ZIPs that are not packages.
        with zipfile.ZipFile(package) as z, zipfile.ZipFile(os.path.join(args.folder, "deflated.mmpk"), "w", zipfile.ZIP_DEFLATED) as d:
            for info in z.infolist():
                d.writestr(info.filename, z.read(info.filename))
        count += 1
        add_files(fixtures("pyshp/*.zip"))
    elif t == "mvt":
        add_files(fixtures("mvt-fixtures/fixtures/*/tile.mvt", "mvt-fixtures/real-world/**/*.mvt", "vtpk-basemapde/sample_pbf/**/*.pbf"))
    elif t == "geojson":
        add_files(fixtures("geojsonhint/**/*.geojson", "geojsonhint/**/*.json", "geojson-vt/*.json", "tippecanoe-edge/tests/*/in.json",
                           "natural-earth/110m/*.geojson", "natural-earth/110m/*.json"))
    elif t == "shapefile":
        for shp in fixtures("pyshp/*.shp", "pyogrio/**/*.shp"):
            base = shp[:-4]
            parts = []
            for ext in (".shp", ".shx", ".dbf"):
                parts.append(open(base + ext, "rb").read() if os.path.exists(base + ext) else b"")
            add(os.path.relpath(base, FIXTURES) + ".shapefile", SEPARATOR.join(parts))
    elif t == "csv":
        add_files(fixtures("tippecanoe-edge/tests/**/*.csv", "portland/*.csv"))
        add("points.csv", b"name,lon,lat,height\nNaperville,-88.15,41.75,210\nAurora,-88.32,41.76,\n\"Lisle, IL\",-88.07,41.80,220.5\n")
        add("wkt.csv", b"id;WKT;when\n1;POINT (1 2);2024-05-01\n2;LINESTRING (0 0, 1 1);2024-05-02T10:00:00Z\n3;;\n")
    elif t == "project":
        add_files(glob.glob(os.path.join(ROOT, "samples", "*", "project.yaml")))
        add("project.json", json.dumps({"title": "JSON project", "sources": {"a": {"path": "a.geojson", "search": {"field": "NAME"}}},
                                         "maps": [{"name": "A", "layers": [{"source": "a", "labels": {"field": "NAME"}}]}]}).encode())
    elif t == "portal-query":
        for i, q in enumerate([
            'water', 'title:"Naperville Water"', 'owner:gis_admin AND type:"Mobile Map Package"',
            'tags:(water OR utilities) NOT access:private', 'modified:[1700000000000 TO 1800000000000]',
            'created:{* TO 1750000000000}', '+title:water -tags:test', 'typekeywords:Offline*', 'id:0123456789abcdef0123456789abcdef',
            'f=json&q=title%3Awater&num=100&start=1&sortField=modified&sortOrder=desc',
            'username=admin&password=p%40ss+word&client=referer&referer=https%3A%2F%2Flocalhost&expiration=60&f=json',
            '((a OR b) AND (c OR "d e")) OR NOT f?']):
            add("q%02d.txt" % i, q.encode())
    elif t == "locator":
        quality = os.path.join(ROOT, "samples", "naperville-water", "search-quality.yaml")
        texts = ["484 w sprng ave", "31 S Washington St", "V-1234", "Washington St & Ogden Ave", "ogden", "1"]
        if os.path.exists(quality):
            for line in open(quality, encoding="utf-8"):
                line = line.strip()
                if line.startswith("- text:") or line.startswith("text:"):
                    texts.append(line.split(":", 1)[1].strip().strip("'\""))
        for i, text in enumerate(texts):
            add("text%03d.txt" % i, text.encode())
    elif t == "style":
        add_files(fixtures("vtpk-basemapde/sample_cache/p12/resources/styles/root.json"))
        for name, vtpk in entries(args.package, ".vtpk"):
            with zipfile.ZipFile(io.BytesIO(vtpk)) as inner:
                for entry in inner.namelist():
                    if entry.endswith("styles/root.json"):
                        add("sample-style.json", inner.read(entry))
    elif t == "webmap":
        add_files(fixtures("arcgis-webmaps/*.json"))
        for name, data in entries(args.package, ".mmap"):
            add(os.path.basename(name), data)
    else:
        sys.exit("unknown target %s" % t)
    print("%s: %d seeds in %s" % (t, count, args.folder))


main()
