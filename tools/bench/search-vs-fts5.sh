#!/bin/sh
# Search at 1,000,000 entries: the package's composite locator against SQLite FTS5, same data
# and queries, one run (docs/PERFORMANCE.md, "Search"). Release build through package-benchmark;
# the work files (data.gpkg, Search.mmpk, fts5.sqlite, report.txt) go to SEARCH_BENCH_DIR.
#
#     tools/bench/search-vs-fts5.sh                      # everything
#     tools/bench/search-vs-fts5.sh --filter 'suggest'   # one benchmark (package-benchmark options)
#
# SEARCH_BENCH_ENTRIES / SEARCH_BENCH_QUERIES / SEARCH_BENCH_BUILDS make smaller or shorter runs.
set -eu
cd "$(dirname "$0")"
export SEARCH_BENCH_DIR="${SEARCH_BENCH_DIR:-/tmp/mapbook-search-bench-${SEARCH_BENCH_ENTRIES:-1000000}}"
swift package benchmark --target SearchBenchmark --no-progress "$@"
echo
echo "Report ($SEARCH_BENCH_DIR/report.txt):"
cat "$SEARCH_BENCH_DIR/report.txt"
