#!/usr/bin/env python3
"""Per-zoom statistics of an MBTiles file of gzip'd MVT tiles: tiles, bytes, largest tile and
features (counted once per tile, as a tile decoder counts them), decoded with
mapbox-vector-tile. Prints one JSON object, or with --table a row per zoom. Usage: tile-stats.py [--table] FILE.mbtiles"""
import gzip
import json
import sqlite3
import sys

import mapbox_vector_tile

table = "--table" in sys.argv[1:]
db = sqlite3.connect([a for a in sys.argv[1:] if a != "--table"][0])
zooms = {}
for z, data in db.execute("SELECT zoom_level, tile_data FROM tiles"):
    s = zooms.setdefault(z, {"tiles": 0, "bytes": 0, "largest": 0, "features": 0})
    s["tiles"] += 1
    s["bytes"] += len(data)
    s["largest"] = max(s["largest"], len(data))
    raw = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
    tile = mapbox_vector_tile.decode(raw)
    s["features"] += sum(len(layer["features"]) for layer in tile.values())
if table:
    for z in sorted(zooms):
        s = zooms[z]
        print(f"    z{z:>2} tiles {s['tiles']:>7} bytes {s['bytes']:>11} largest {s['largest']:>7} features {s['features']:>9}")
else:
    print(json.dumps({str(z): zooms[z] for z in sorted(zooms)}))
