#!/usr/bin/env python3
"""Per-zoom statistics of an MBTiles file of gzip'd MVT tiles: tiles, bytes, largest tile and
features (counted once per tile, as a tile decoder counts them), decoded with
mapbox-vector-tile. Prints one JSON object. Usage: tile-stats.py FILE.mbtiles"""
import gzip
import json
import sqlite3
import sys

import mapbox_vector_tile

db = sqlite3.connect(sys.argv[1])
zooms = {}
for z, data in db.execute("SELECT zoom_level, tile_data FROM tiles"):
    s = zooms.setdefault(z, {"tiles": 0, "bytes": 0, "largest": 0, "features": 0})
    s["tiles"] += 1
    s["bytes"] += len(data)
    s["largest"] = max(s["largest"], len(data))
    raw = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
    tile = mapbox_vector_tile.decode(raw)
    s["features"] += sum(len(layer["features"]) for layer in tile.values())
print(json.dumps({str(z): zooms[z] for z in sorted(zooms)}))
