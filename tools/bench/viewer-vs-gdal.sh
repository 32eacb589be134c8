#!/usr/bin/env bash
# The viewer's speed goals (issue 15) in one run, each beside GDAL's rasterizer burning the
# same layers over the same extent and size (no backdrop, no symbols, no labels: the peer's
# floor), and the figures docs/PERFORMANCE.md ("The viewer") quotes:
#   - Naperville's 811 map at Downtown, warm (viewer-queries) and as a new process;
#   - Natural Earth's countries and populated places with labels, the whole world;
#   - 1,000,000 generated points in a 40 km square (feature-queries' GeoPackage), whole;
#   - identify on those points at 1:24,000.
# Builds what it needs: the release mapbook and bench tools, the demo package, and the two
# packages below in .build/bench/viewer.
#
#   [MAPBOOK=path/to/mapbook] tools/bench/viewer-vs-gdal.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
fixtures=${FIXTURES:-../shared/fixtures}
ne="$fixtures/natural-earth/110m"
[ -f "$ne/ne_110m_admin_0_countries.json" ] || { echo "needs $ne (../shared/fixtures)" >&2; exit 1; }
tools/setup >/dev/null
if [ -n "${MAPBOOK:-}" ]; then mapbook=$(realpath "$MAPBOOK"); else
    make -s release demo >/dev/null
    mapbook=$PWD/.build/release/mapbook
fi
(cd tools/bench && rm -f .build/release.yaml && swift build -c release --product viewer-queries --product feature-queries >/dev/null)
bench=$PWD/tools/bench/.build/release
work=$PWD/.build/bench/viewer
mkdir -p "$work"
[ -f .build/bench/points-1m.gpkg ] || "$bench/feature-queries" .build/bench/points-1m.gpkg 1000000 10 >/dev/null

cat > "$work/world.yaml" <<YAML
title: World
crs: EPSG:3857
sources:
  countries: { path: $(realpath "$ne/ne_110m_admin_0_countries.json"), title: Countries }
  places: { path: $(realpath "$ne/ne_110m_populated_places_simple.json"), title: Places }
maps:
  - name: World
    layers:
      - source: countries
        renderer: { uniqueValue: { field: MAPCOLOR7 } }
        labels: [{ field: NAME, size: 8, color: "#333333", halo: "#ffffff", placement: horizontal }]
      - source: places
        renderer: { simple: { color: "#222222", size: 3 } }
        labels: [{ field: name, size: 7, color: "#000000", halo: "#ffffff", placement: above-right, where: "scalerank <= 2" }]
    bookmarks:
      - { name: World, extent: [-180, -70, 180, 80] }
YAML
cat > "$work/points.yaml" <<YAML
title: Points
crs: EPSG:3857
sources:
  points: { path: $PWD/.build/bench/points-1m.gpkg, table: points }
maps:
  - name: Points
    layers:
      - source: points
        renderer: { uniqueValue: { field: kind } }
YAML
[ -f "$work/world.mmpk" ] || "$mapbook" create "$work/world.yaml" -o "$work/world.mmpk" >/dev/null
[ -f "$work/points.mmpk" ] || "$mapbook" create "$work/points.yaml" -o "$work/points.mmpk" >/dev/null
demo=$PWD/.build/demo/NapervilleWater.mmpk
for p in "$demo" "$work/world.mmpk"; do unzip -o -q "$p" p20/data.gpkg -d "$work/$(basename "$p" .mmpk)"; done

echo "== warm, one process (median of 30; 10 for the points)"
"$bench/viewer-queries" render "$demo" "811 Map" Downtown 30
"$bench/viewer-queries" render "$work/world.mmpk" World World 30
"$bench/viewer-queries" render "$work/points.mmpk" Points initial 10
"$bench/viewer-queries" identify "$work/points.mmpk" points 2000 24000

# The views' extents in Web Mercator (the bookmarks fitted to 1024 x 768), for GDAL.
echo "== new processes against gdal_rasterize"
hyperfine -N --warmup 3 --runs 20 \
    "$mapbook render $demo --bookmark Downtown --size 1024x768 -o $work/a.png" \
    "gdal_rasterize -q -l laterals -l mains -l addresses -burn 1 -burn 2 -burn 3 -ot Byte -te -9813780.48 5123638.18 -9812638.34 5124494.78 -ts 1024 768 $work/NapervilleWater/p20/data.gpkg $work/a.tif"
hyperfine -N --warmup 2 --runs 10 \
    "$mapbook render $work/world.mmpk --bookmark World --size 1024x768 -o $work/w.png" \
    "gdal_rasterize -q -l countries -l places -burn 1 -burn 2 -ot Byte -te -20037508.34 -12793133.54 20037508.34 17263128.98 -ts 1024 768 $work/world/p20/data.gpkg $work/w.tif"
hyperfine -N --warmup 1 --runs 5 \
    "$mapbook render $work/points.mmpk --size 1024x768 -o $work/p.png" \
    "gdal_rasterize -q -l points -burn 1 -ot Byte -te -9819666.7 5122000 -9766333.3 5162000 -ts 1024 768 $PWD/.build/bench/points-1m.gpkg $work/p.tif"
