#!/usr/bin/env bash
# Times `mapbook create` importing a generated 1,000,000-point GeoJSON and pyshp's merge.shp
# into a package, against `ogr2ogr -f GPKG` importing the same two files into a GeoPackage,
# in one run: wall time and peak memory (GNU time), 3 runs each, best and median.
#
#   [MAPBOOK=path/to/mapbook] tools/bench/import-vs-ogr2ogr.sh [POINTS]
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
geojson=.build/bench/points-${points}.geojson
[ -f "$geojson" ] || python3 tools/bench/make-points-geojson.py "$geojson" "$points"
ln -sf "$(realpath "$geojson")" "$work/points.geojson"
for ext in shp shx dbf; do ln -sf "$(realpath "${merge%.shp}.$ext")" "$work/merge.$ext"; done
cat > "$work/project.yaml" <<'YAML'
title: Import benchmark
sources:
  points: points.geojson
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

cat "$geojson" "$merge" >/dev/null  # warm the page cache for both tools
results=()
for run in 1 2 3; do
    rm -f "$work/out.mmpk" "$work/ogr.gpkg"
    results+=("$(measure mapbook "$mapbook" create "$work/project.yaml" -o "$work/out.mmpk" --fixed-time 2026-01-01)")
    results+=("$(measure ogr2ogr sh -c "ogr2ogr -f GPKG '$work/ogr.gpkg' '$work/points.geojson' && ogr2ogr -f GPKG -update '$work/ogr.gpkg' '$work/merge.shp'")")
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
