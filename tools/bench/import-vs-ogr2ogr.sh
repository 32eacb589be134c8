#!/usr/bin/env bash
# Times `mapbook create` importing 1,000,000 generated points and pyshp's merge.shp into a
# package, against `ogr2ogr -f GPKG` importing the same two files into a GeoPackage, in one
# run: wall time and peak memory (GNU time), 3 runs each, best and median. The points are a
# GeoJSON (tools/bench/make-points-geojson.py), or with FORMAT=csv make-csv.py's lon/lat CSV
# (both tools infer types over every row), or with FORMAT=shp a Shapefile made from the GeoJSON.
#
#   [MAPBOOK=path/to/mapbook] [FORMAT=geojson|csv|shp] tools/bench/import-vs-ogr2ogr.sh [POINTS]
set -euo pipefail
cd "$(dirname "$0")/../.."
points=${1:-1000000}
fixtures=${FIXTURES:-../shared/fixtures}
merge="$fixtures/pyshp/merge.shp"
[ -f "$merge" ] || { echo "needs $merge (../shared/fixtures)" >&2; exit 1; }
command -v ogr2ogr >/dev/null || { echo "needs ogr2ogr (tools/setup installs gdal-bin)" >&2; exit 1; }
[ -x /usr/bin/time ] || apt-get install -y -qq time >/dev/null

# MAPBOOK=path measures another build (an earlier commit's, for a before-and-after run).
if [ -n "${MAPBOOK:-}" ]; then mapbook=$(realpath "$MAPBOOK"); else
    swift build -c release --static-swift-stdlib --product mapbook
    mapbook=$PWD/.build/release/mapbook
fi
work=.build/bench/import
mkdir -p "$work"
format=${FORMAT:-geojson}
geojson=.build/bench/points-${points}.geojson
rm -f "$work"/points.*
case $format in
geojson)
    [ -f "$geojson" ] || python3 tools/bench/make-points-geojson.py "$geojson" "$points"
    ln -sf "$(realpath "$geojson")" "$work/points.geojson"
    input=points.geojson
    source=$input
    ogr_options=() ;;
csv)
    csv=.build/bench/csv-${points}-0/points.csv
    [ -f "$csv" ] || python3 tools/bench/make-csv.py "$(dirname "$csv")" "$points" 0
    ln -sf "$(realpath "$csv")" "$work/points.csv"
    input=points.csv
    source="{ path: $input, x: lon, y: lat, crs: EPSG:4326 }"
    ogr_options=(-a_srs EPSG:4326 -oo X_POSSIBLE_NAMES=lon -oo Y_POSSIBLE_NAMES=lat -oo AUTODETECT_TYPE=YES -oo AUTODETECT_SIZE_LIMIT=0) ;;
shp)
    [ -f "$geojson" ] || python3 tools/bench/make-points-geojson.py "$geojson" "$points"
    shp=.build/bench/shp-${points}/points.shp
    [ -f "$shp" ] || { mkdir -p "$(dirname "$shp")"; ogr2ogr -f "ESRI Shapefile" "$shp" "$geojson"; }
    for ext in shp shx dbf prj cpg; do [ -f "${shp%.shp}.$ext" ] && ln -sf "$(realpath "${shp%.shp}.$ext")" "$work/points.$ext"; done
    input=points.shp
    source=$input
    ogr_options=() ;;
*) echo "FORMAT is geojson, csv or shp" >&2; exit 2 ;;
esac
for ext in shp shx dbf; do ln -sf "$(realpath "${merge%.shp}.$ext")" "$work/merge.$ext"; done
cat > "$work/project.yaml" <<YAML
title: Import benchmark
sources:
  points: $source
  merge: merge.shp
maps:
  - name: Bench
    layers: [merge, points]
YAML

# measure LABEL COMMAND...: prints "LABEL seconds maxRSS-MiB" for one run.
measure() {
    local label=$1; shift
    /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" >/dev/null 2>"$work/stderr.txt" || { cat "$work/stderr.txt" >&2; exit 1; }
    read -r secs kib <"$work/time.txt"
    echo "$label $secs $((kib / 1024))"
}

cat "$work"/points.* "$merge" >/dev/null  # warm the page cache for both tools
results=()
for run in 1 2 3; do
    rm -f "$work/out.mmpk" "$work/ogr.gpkg"
    results+=("$(measure mapbook "$mapbook" create "$work/project.yaml" -o "$work/out.mmpk" --fixed-time 2026-01-01)")
    results+=("$(measure ogr2ogr sh -c "ogr2ogr -f GPKG ${ogr_options[*]} '$work/ogr.gpkg' '$work/$input' && ogr2ogr -f GPKG -update '$work/ogr.gpkg' '$work/merge.shp'")")
done
printf '%s\n' "${results[@]}"
echo
echo "| tool | runs | best wall (s) | median wall (s) | peak RSS (MiB) | output bytes |"
echo "|---|---|---|---|---|---|"
for tool in mapbook ogr2ogr; do
    printf '%s\n' "${results[@]}" | awk -v t="$tool" '$1==t {print $2, $3}' | sort -n >"$work/$tool.txt"
    best=$(head -1 "$work/$tool.txt" | cut -d' ' -f1)
    median=$(sed -n 2p "$work/$tool.txt" | cut -d' ' -f1)
    rss=$(sort -k2 -n "$work/$tool.txt" | tail -1 | cut -d' ' -f2)
    if [ "$tool" = mapbook ]; then size=$(stat -c %s "$work/out.mmpk"); else size=$(stat -c %s "$work/ogr.gpkg"); fi
    echo "| $tool | 3 | $best | $median | $rss | $size |"
done
echo
"$mapbook" create "$work/project.yaml" -o "$work/out.mmpk" --fixed-time 2026-01-01 | sed 's/^/    /'
echo "$(ogr2ogr --version); $(nproc) cores; $(uname -sr)"
