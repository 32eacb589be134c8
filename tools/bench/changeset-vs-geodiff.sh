#!/usr/bin/env bash
# Changesets (issue 19): recording, applying and merging 10,000 mixed edits (a third each
# inserts, updates, deletes) on a layer of FEATURES points, against pygeodiff 2.x creating the
# same changeset (by diffing the edited GeoPackage against the base, its way) and applying it.
# The layer is an editable one made by `mapbook create` from tools/bench/make-points-geojson.py.
#
#   tools/bench/changeset-vs-geodiff.sh [FEATURES=100000] [EDITS=10000] [RUNS=5]
#
# Each measurement runs RUNS times; the median is reported. pygeodiff comes from .venv
# (tools/setup). The figures go in docs/PERFORMANCE.md ("Changesets and sync").
set -euo pipefail
cd "$(dirname "$0")/../.."
features=${1:-100000}
edits=${2:-10000}
runs=${3:-5}
dir=${CHANGESET_BENCH_DIR:-/tmp/mapbook-changeset-bench}
mkdir -p "$dir"
python=.venv/bin/python
[ -x "$python" ] && "$python" -c "import pygeodiff" 2>/dev/null || { echo "changeset-vs-geodiff: pygeodiff is missing; run tools/setup" >&2; exit 1; }
swift build -c release --product mapbook >/dev/null
(cd tools/bench && swift build -c release --product changeset-edits >/dev/null)
bench=tools/bench/.build/release/changeset-edits

if [ ! -f "$dir/base.gpkg" ] || [ "$(sqlite3 "$dir/base.gpkg" 'select count(*) from points')" != "$features" ]; then
    python3 tools/bench/make-points-geojson.py "$dir/points.geojson" "$features"
    cat > "$dir/project.yaml" <<YAML
title: Changeset bench
sources:
  points:
    path: points.geojson
    edit:
      fields:
        kind: { required: true }
        value: { range: [0, 100000] }
maps:
  - name: Points
    layers: [points]
YAML
    .build/release/mapbook create "$dir/project.yaml" -o "$dir/points.mmpk" >/dev/null
    (cd "$dir" && rm -rf p20 && unzip -q -o points.mmpk p20/data.gpkg && mv p20/data.gpkg base.gpkg && rm -rf p20)
fi

echo "== mapbook ($runs runs)"
for i in $(seq "$runs"); do "$bench" "$dir/base.gpkg" points "$dir" "$edits"; done | tee "$dir/ours.jsonl"

echo "== pygeodiff $("$python" -c 'import pygeodiff; print(pygeodiff.GeoDiff().version())') ($runs runs)"
for i in $(seq "$runs"); do
"$python" - "$dir" <<'PY'
import json, os, shutil, sys, time
import pygeodiff
d = sys.argv[1]
g = pygeodiff.GeoDiff()
for f in ("geodiff.changeset", "geodiff-applied.gpkg"):
    if os.path.exists(os.path.join(d, f)): os.remove(os.path.join(d, f))
t = time.perf_counter()
g.create_changeset(os.path.join(d, "base.gpkg"), os.path.join(d, "ours.gpkg"), os.path.join(d, "geodiff.changeset"))
create = (time.perf_counter() - t) * 1000
shutil.copyfile(os.path.join(d, "base.gpkg"), os.path.join(d, "geodiff-applied.gpkg"))
t = time.perf_counter()
g.apply_changeset(os.path.join(d, "geodiff-applied.gpkg"), os.path.join(d, "geodiff.changeset"))
apply = (time.perf_counter() - t) * 1000
n = g.changes_count(os.path.join(d, "geodiff.changeset"))
print(json.dumps({"changes": n, "changesetBytes": os.path.getsize(os.path.join(d, "geodiff.changeset")), "createMs": round(create, 1), "applyMs": round(apply, 1)}))
PY
done | tee "$dir/geodiff.jsonl"

python3 - "$dir" <<'PY'
import json, statistics, sys
d = sys.argv[1]
ours = [json.loads(l) for l in open(d + "/ours.jsonl")]
peer = [json.loads(l) for l in open(d + "/geodiff.jsonl")]
med = lambda rows, k: statistics.median(r[k] for r in rows)
print(f"features {ours[0]['features']}, edits {ours[0]['edits']} ({ours[0]['inserts']} inserts, {ours[0]['updates']} updates, {ours[0]['deletes']} deletes)")
print(f"mapbook: the edits recorded {med(ours,'recordMs'):.1f} ms (the same edits unrecorded {med(ours,'editsOnlyMs'):.1f} ms), apply {med(ours,'applyMs'):.1f} ms, portal merge {med(ours,'portalMergeMs'):.1f} ms, "
      f"record each {med(ours,'recordEachMs'):.1f} ms + combine {med(ours,'combineMs'):.1f} ms; changeset {ours[0]['changesetBytes']} B; applied matches {all(r['appliedMatches'] for r in ours)}")
print(f"pygeodiff: create {med(peer,'createMs'):.1f} ms, apply {med(peer,'applyMs'):.1f} ms; changeset {peer[0]['changesetBytes']} B, {peer[0]['changes']} changes")
PY
