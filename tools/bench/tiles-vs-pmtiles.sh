#!/usr/bin/env bash
# Writes a large synthetic .vtpk and exports it to PMTiles, MBTiles and a tile folder
# (tools/bench/Sources/tiles-archive), then converts the MBTiles to PMTiles with the `pmtiles`
# Python package in the same run, and reads our PMTiles back with it. Needs .venv (tools/setup).
#
#   tools/bench/tiles-vs-pmtiles.sh [TILES=200000] [MEAN_TILE_BYTES=6000]
set -euo pipefail
cd "$(dirname "$0")/../.."
tiles=${1:-200000}
mean=${2:-6000}

(cd tools/bench && swift build -c release --product tiles-archive)
out=.build/bench/tiles
rm -rf "$out" && mkdir -p "$out"
tools/bench/.build/release/tiles-archive "$out" "$tiles" "$mean"
ls -l "$out"
/usr/bin/time -f "pmtiles-convert (Python pmtiles 3.8.1) mbtiles -> pmtiles: %e s; peak RSS %M KiB" \
    .venv/bin/pmtiles-convert "$out/bench.mbtiles" "$out/peer.pmtiles" 2>&1 | grep -v Notice
ls -l "$out/peer.pmtiles"
.venv/bin/python -c "
import sys
from pmtiles.reader import Reader, MmapSource, all_tiles
with open(sys.argv[1], 'rb') as f:
    r = Reader(MmapSource(f))
    print('pmtiles reads back', sum(1 for _ in all_tiles(r.get_bytes)), 'tiles of our archive')
" "$out/bench.pmtiles"
