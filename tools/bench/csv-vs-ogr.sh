#!/usr/bin/env bash
# Times reading a large CSV through `CSVReader` (tools/bench csv-read) against GDAL's
# `ogrinfo -al -so` on the same files, in one run, with hyperfine. Both read every record:
# GDAL to detect types (AUTODETECT_SIZE_LIMIT=0: the whole file, as CSVReader does), count
# the features and compute the extent; csv-read to infer the schema, then to read every feature.
# Prints a Markdown table for docs/PERFORMANCE.md.
#
#   tools/bench/csv-vs-ogr.sh [POINT_ROWS] [POLYGON_ROWS]
set -euo pipefail
cd "$(dirname "$0")/../.."
points=${1:-1000000}
polygons=${2:-100000}

command -v hyperfine >/dev/null || {
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get install -y -qq hyperfine >/dev/null
}

(cd tools/bench && swift build -c release --product csv-read)

data=.build/bench/csv-${points}-${polygons}
[ -f "$data/polygons.csv" ] || python3 tools/bench/make-csv.py "$data" "$points" "$polygons"
ls -l "$data"

read=tools/bench/.build/release/csv-read
cat "$data"/*.csv >/dev/null
hyperfine --warmup 1 --runs 5 --export-markdown .build/bench/csv-vs-ogr.md \
    -n "ogrinfo points" "ogrinfo -al -so -oo X_POSSIBLE_NAMES=lon -oo Y_POSSIBLE_NAMES=lat -oo AUTODETECT_TYPE=YES -oo AUTODETECT_SIZE_LIMIT=0 $data/points.csv" \
    -n "csv-read points" "$read $data/points.csv" \
    -n "ogrinfo polygons" "ogrinfo -al -so -oo GEOM_POSSIBLE_NAMES=WKT -oo KEEP_GEOM_COLUMNS=NO -oo AUTODETECT_TYPE=YES -oo AUTODETECT_SIZE_LIMIT=0 $data/polygons.csv" \
    -n "csv-read polygons" "$read $data/polygons.csv" \
    --output=null
cat .build/bench/csv-vs-ogr.md
echo
/usr/bin/time -f "ogrinfo points: %M KB peak" ogrinfo -al -so -oo X_POSSIBLE_NAMES=lon -oo Y_POSSIBLE_NAMES=lat -oo AUTODETECT_TYPE=YES -oo AUTODETECT_SIZE_LIMIT=0 "$data/points.csv" >/dev/null
/usr/bin/time -f "csv-read points: %M KB peak" "$read" "$data/points.csv" >/dev/null
echo "$(ogrinfo --version); $(nproc) cores; $(uname -sr)"
