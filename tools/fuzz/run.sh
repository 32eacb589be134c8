#!/usr/bin/env bash
# Runs one libFuzzer driver for a while (issue 17; docs/RELIABILITY.md):
#
#   tools/fuzz/run.sh TARGET SECONDS [libFuzzer options...]
#
# TARGET is one of: package mvt geojson shapefile csv project portal-query locator style webmap.
# Builds the drivers (release, -sanitize=fuzzer,address; tools/fuzz/.build), makes the seed
# corpus once (tools/fuzz/seeds.py, from ../shared/fixtures and inputs of our own), then fuzzes
# with the corpus kept in tools/fuzz/.corpus/TARGET/corpus across runs. A crash, a hang (an
# input over 10 s) or an input using over 2 GB stops the run with exit status 1 and leaves the
# input in tools/fuzz/.corpus/TARGET/crashes/. The log, with libFuzzer's final statistics
# (executions, cov, ft), is tools/fuzz/.corpus/TARGET/last.log.
set -euo pipefail
cd "$(dirname "$0")"
targets=(package mvt geojson shapefile csv project portal-query locator style webmap)
if [ $# -lt 2 ] || [[ ! " ${targets[*]} " == *" $1 "* ]] || ! [[ "$2" =~ ^[0-9]+$ ]]; then
    echo "usage: tools/fuzz/run.sh TARGET SECONDS [libFuzzer options...]; TARGET is one of: ${targets[*]}" >&2
    exit 64
fi
target=$1 seconds=$2
shift 2
root=$(cd ../.. && pwd)

# Every Swift module the driver uses is built with coverage and AddressSanitizer, and so is
# the C that is ours (the SQLite VFS, the lazy loaders). Linked by lld: gold stops with an
# internal error on the sanitizers' debug information.
swift build -c release --product "fuzz-$target" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld \
    -Xcc -fsanitize=fuzzer-no-link,address >&2

work=.corpus/$target
mkdir -p "$work/corpus" "$work/crashes"
package=$root/.build/demo/NapervilleWater.mmpk
if [ ! -s "$package" ] && [[ " locator style webmap " == *" $target "* ]]; then
    echo "tools/fuzz/run.sh: building the Naperville sample package (make demo) for the $target seeds" >&2
    make -C "$root" demo >&2
fi
if [ ! -d "$work/seeds" ]; then
    mapbook=$root/.build/release/mapbook
    [ -x "$mapbook" ] || mapbook=$root/.build/debug/mapbook
    if [ ! -x "$mapbook" ]; then
        (cd "$root" && swift build --product mapbook >&2)
    fi
    python3 seeds.py "$target" "$work/seeds.tmp" --mapbook "$mapbook" --package "$package" >&2
    mv "$work/seeds.tmp" "$work/seeds"
fi

# Inputs as long as the longest seed, and never under 4 KiB: short seeds (search text, a
# query) must not cap what the fuzzer may try.
max_len=$(find "$work/seeds" -type f -printf '%s\n' | sort -n | tail -1)
[ "${max_len:-0}" -ge 4096 ] || max_len=4096
export MAPBOOK_FUZZ_PACKAGE=$package
# ASan: report leaks in the drivers' own code only at exit, not per input.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}
status=0
".build/release/fuzz-$target" "$work/corpus" "$work/seeds" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" \
    -print_final_stats=1 -artifact_prefix="$work/crashes/" "$@" 2>&1 | tee "$work/last.log" >&2 || status=$?
exit $status
