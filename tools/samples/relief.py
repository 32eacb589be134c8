"""A shaded-relief raster base map as an Esri compact tile package (.tpkx), for the samples'
basemap picker: made-up terrain (no real elevation data is bundled), hillshaded and tinted.

    python3 tools/samples/relief.py OUT.tpkx WEST SOUTH EAST NORTH [MINZOOM MAXZOOM]

The tiles are 256-pixel PNGs on the Web Mercator tiling scheme (level z is zoom z) covering
the box, stored in Compact Cache V2 bundles (the format of
../shared/fixtures/vtpk-basemapde/CompactCacheV2.md) with a root.json as ArcGIS Pro writes
it; every entry is stored, as tiles are read in place. The terrain is a sum of waves along
four directions in metres, so tiles agree across zooms and at their edges. Byte-identical on
every run; standard library only.
"""
import json, math, os, struct, sys, zipfile, zlib

WORLD = 20037508.342787
RESOLUTION0 = 2 * WORLD / 256
# Waves of the terrain: (direction, wavelength in metres, amplitude in metres, phase).
WAVES = [("x", 5200, 9.0, 0.3), ("y", 4300, 7.0, 1.1), ("d", 2900, 4.0, 2.0), ("a", 1700, 2.5, 0.7),
         ("x", 900, 1.2, 1.9), ("y", 650, 0.9, 0.4), ("d", 23000, 14.0, 0.0), ("a", 17000, 11.0, 2.6)]
# Hypsometric tints, low to high: river-bottom green to upland tan.
TINTS = [(170, 200, 160), (190, 210, 165), (210, 220, 175), (228, 225, 185), (235, 220, 190), (225, 205, 175), (210, 190, 165), (200, 185, 170)]
SHADES = 16


def palette():
    """Tint band t and shade s as colour t * SHADES + s."""
    colours = []
    for tint in TINTS:
        for s in range(SHADES):
            light = 0.55 + 0.6 * s / (SHADES - 1)
            colours.append(tuple(min(255, int(c * light)) for c in tint))
    return colours


def wave_values(kind, start, step, count, sign=1):
    """Each wave of `kind` (height, slope) at `count` positions from `start`, `step` apart."""
    heights, slopes = [0.0] * count, [0.0] * count
    for direction, length, amplitude, phase in WAVES:
        if direction != kind:
            continue
        k = 2 * math.pi / length
        for i in range(count):
            t = (start + i * step * sign) * k + phase
            heights[i] += amplitude * math.sin(t)
            slopes[i] += amplitude * k * math.cos(t)
    return heights, slopes


def tile_png(z, x, y, colours):
    res = RESOLUTION0 / (1 << z)
    left, top = x * 256 * res - WORLD, WORLD - y * 256 * res
    cx, dcx = wave_values("x", left + res / 2, res, 256)
    ry, dry = wave_values("y", top - res / 2, res, 256, -1)
    # Diagonals: d along x + y, a along x - y, indexed by column + row.
    dd, ddd = wave_values("d", left + top, res, 512, 1)
    aa, daa = wave_values("a", left - top, res, 512, 1)
    low, high = -45.0, 45.0
    bands = len(TINTS)
    raw = bytearray()
    for j in range(256):
        raw.append(0)
        hy, sy = ry[j], dry[j]
        for i in range(256):
            # Row j is at top - j * res: x + y advances by (i - j) * res, x - y by (i + j) * res.
            d = i - j + 255
            a = i + j
            h = cx[i] + hy + dd[d] + aa[a]
            gx = dcx[i] + ddd[d] + daa[a]
            gy = sy + ddd[d] - daa[a]
            # Light from the north-west, 45 degrees up; slopes exaggerated for a flat town.
            shade = (1 + 12 * (gy - gx) * 0.7071) / math.sqrt(1 + 144 * (gx * gx + gy * gy))
            s = min(SHADES - 1, max(0, int((shade + 0.2) / 1.4 * SHADES)))
            t = min(bands - 1, max(0, int((h - low) / (high - low) * bands)))
            raw.append(t * SHADES + s)
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 256, 256, 8, 3, 0, 0, 0))
            + chunk(b"PLTE", b"".join(bytes(c) for c in colours)) + chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b""))


def bundle(tiles):
    """A Compact Cache V2 bundle of {(row, column): bytes} within the bundle."""
    index, body = [], bytearray()
    offset = 64 + 8 * 128 * 128
    for slot in range(128 * 128):
        tile = tiles.get((slot // 128, slot % 128))
        if tile is None:
            index.append(0)
            continue
        index.append(len(tile) << 40 | (offset + len(body) + 4))
        body += struct.pack("<I", len(tile)) + tile
    size = offset + len(body)
    header = struct.pack("<IIIIQQQIIIIII", 3, 128 * 128, max((len(t) for t in tiles.values()), default=0), 5, 0, size, 40,
                         20 + 8 * 128 * 128, 3, 16, 128 * 128, 5, 8 * 128 * 128)
    return header + struct.pack(f"<{128 * 128}Q", *index) + bytes(body)


def tile_range(west, south, east, north, z):
    n = 1 << z
    def column(lon): return int((lon + 180) / 360 * n)
    def row(lat): return int((1 - math.log(math.tan(math.radians(lat)) + 1 / math.cos(math.radians(lat))) / math.pi) / 2 * n)
    return (column(west), column(east)), (row(north), row(south))


def write(path, west, south, east, north, minzoom=10, maxzoom=14):
    colours = palette()
    entries = []
    for z in range(minzoom, maxzoom + 1):
        (x0, x1), (y0, y1) = tile_range(west, south, east, north, z)
        bundles = {}
        for y in range(y0, y1 + 1):
            for x in range(x0, x1 + 1):
                bundles.setdefault((y // 128 * 128, x // 128 * 128), {})[(y % 128, x % 128)] = tile_png(z, x, y, colours)
        for (r, c), tiles in sorted(bundles.items()):
            entries.append((f"tile/L{z:02d}/R{r:04x}C{c:04x}.bundle", bundle(tiles)))
    def mercator(lon, lat):
        return lon * WORLD / 180, math.log(math.tan(math.pi / 4 + math.radians(lat) / 2)) * WORLD / math.pi
    (xmin, ymin), (xmax, ymax) = mercator(west, south), mercator(east, north)
    sr = {"wkid": 102100, "latestWkid": 3857}
    extent = {"xmin": xmin, "ymin": ymin, "xmax": xmax, "ymax": ymax, "spatialReference": sr}
    root = {
        "currentVersion": 10.9, "name": "Shaded Relief", "capabilities": "Map",
        "tileBundlesPath": "./tile", "storageInfo": {"storageFormat": "esriMapCacheStorageModeCompactV2", "packetSize": 128},
        "tileInfo": {"rows": 256, "cols": 256, "dpi": 96, "format": "PNG8", "compressionQuality": 0,
                     "origin": {"x": -WORLD, "y": WORLD}, "spatialReference": sr,
                     "lods": [{"level": z, "resolution": RESOLUTION0 / (1 << z), "scale": 591657527.591555 / (1 << z)} for z in range(maxzoom + 1)]},
        "tileImageInfo": {"format": "PNG8", "compressionQuality": 0, "antialiasing": True},
        "minLOD": minzoom, "maxLOD": maxzoom, "resourceInfo": {"cacheInfo": {"storageInfo": {"packetSize": 128}}},
        "initialExtent": extent, "fullExtent": extent,
        "copyrightText": "Made-up terrain for the Mapbook samples (tools/samples/relief.py)",
    }
    entries.insert(0, ("root.json", json.dumps(root, indent=2).encode()))
    temporary = path + ".tmp"
    with zipfile.ZipFile(temporary, "w", zipfile.ZIP_STORED) as z:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            z.writestr(info, data, compress_type=zipfile.ZIP_STORED)
    os.replace(temporary, path)


if __name__ == "__main__":
    if len(sys.argv) not in (6, 8):
        print(__doc__, file=sys.stderr)
        sys.exit(64)
    write(sys.argv[1], *map(float, sys.argv[2:6]), *map(int, sys.argv[6:8]))
