#!/usr/bin/env bash
# The package the portal benchmarks serve: the Naperville sample (5 MB), built once into DIR.
#
#   tools/bench/portal/sample-package.sh DIR MAPBOOK   # prints the package's path
set -euo pipefail
cd "$(dirname "$0")/../../.."
dir=${1:?a folder}
mapbook=${2:?the mapbook binary}
package=$dir/NapervilleWater.mmpk
if [ ! -f "$package" ]; then
    mkdir -p "$dir/sample"
    python3 tools/samples/naperville.py "$dir/sample" >/dev/null
    cp samples/naperville-water/project.yaml samples/naperville-water/search-quality.yaml "$dir/sample/"
    "$mapbook" create "$dir/sample/project.yaml" -o "$package" >/dev/null
fi
echo "$package"
