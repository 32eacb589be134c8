#!/usr/bin/env bash
# Times `mapbook inspect` against `unzip -l` on the same large package (>= 1 GiB, >= 10,000
# entries), in one run, with hyperfine. Prints a Markdown table for docs/PERFORMANCE.md.
#
#   tools/bench/inspect-vs-unzip.sh [ENTRIES] [MiB]
set -euo pipefail
cd "$(dirname "$0")/../.."
entries=${1:-10000}
mib=${2:-1100}

command -v hyperfine >/dev/null || {
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get install -y -qq hyperfine >/dev/null
}

swift build -c release --static-swift-stdlib --product mapbook
(cd tools/bench && swift build -c release --product make-large-package)

mkdir -p .build/bench
package=.build/bench/large-${entries}.mmpk
[ -f "$package" ] || tools/bench/.build/release/make-large-package "$package" "$entries" "$mib"
ls -l "$package"

mapbook=.build/release/mapbook
# Warm the page cache so both read from memory, as a field device reopening a package does.
cat "$package" >/dev/null
hyperfine --warmup 5 --runs 40 --export-markdown .build/bench/inspect-vs-unzip.md \
    -n "unzip -l" "unzip -l $package" \
    -n "mapbook inspect" "$mapbook inspect $package" \
    -n "mapbook inspect --json" "$mapbook inspect --json $package" \
    -n "mapbook inspect --no-entries" "$mapbook inspect --no-entries $package" \
    --output=null
cat .build/bench/inspect-vs-unzip.md
echo
echo "unzip $(unzip -v | head -1 | cut -d' ' -f1-2); $(nproc) cores; $(uname -sr)"
