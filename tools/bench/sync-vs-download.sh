#!/usr/bin/env bash
# Synchronisation (issue 19): `mapbook sync` of EDITS edits (a third each adds, updates,
# deletes) against a portal on loopback, end to end (the process started to its exit: the
# request made, sent over HTTPS, merged, answered, applied), and the other device's sync that
# receives them; beside it, the peer a field user has without sync: downloading the whole
# package again (`mapbook portal download`). The package is the 100,000-point editable one of
# tools/bench/changeset-vs-geodiff.sh (made here when missing).
#
#   tools/bench/sync-vs-download.sh [EDITS=100] [RUNS=5]
#   SYNC_BENCH_CLUSTER=1 tools/bench/sync-vs-download.sh ...   # the devices on different
#                                  processes of tools/portal/cluster.sh (PostgreSQL + S3)
#
# The portal (`mapbook portal serve --self-signed`) listens on a free loopback port and stops
# at the end. The figures go in docs/PERFORMANCE.md ("Changesets and sync").
set -euo pipefail
cd "$(dirname "$0")/../.."
edits=${1:-100}
runs=${2:-5}
dir=${SYNC_BENCH_DIR:-/tmp/mapbook-sync-bench}
pkgdir=${CHANGESET_BENCH_DIR:-/tmp/mapbook-changeset-bench}
swift build -c release --product mapbook >/dev/null
mapbook=$PWD/.build/release/mapbook
if [ ! -f "$pkgdir/points.mmpk" ]; then tools/bench/changeset-vs-geodiff.sh 100000 10000 1 >/dev/null; fi
[ -d "$dir/cluster" ] && tools/portal/cluster.sh down "$dir/cluster" >/dev/null 2>&1 || true
rm -rf "$dir" && mkdir -p "$dir/data"
if [ -n "${SYNC_BENCH_CLUSTER:-}" ]; then
    # Three processes behind nginx on PostgreSQL and S3: device a talks to process 1, b to
    # process 2, the publish and the peer's download go through nginx.
    url=$(MAPBOOK=$mapbook PORTAL_STOP_AFTER=1800 tools/portal/cluster.sh up "$dir/cluster" 3)
    trap 'tools/portal/cluster.sh down "$dir/cluster" >/dev/null 2>&1 || true' EXIT
    # shellcheck disable=SC1091
    source "$dir/cluster/env"
    echo 'bench-password-1' | "$mapbook" portal user add bench --data "$dir/data" --store "$PORTAL_STORE" --password-stdin >/dev/null
    cert=$dir/cluster/p1/tls/certificate.pem
    urls=("$(tools/portal/cluster.sh url "$dir/cluster" 1)" "$(tools/portal/cluster.sh url "$dir/cluster" 2)" "$url")
else
    echo 'bench-password-1' | "$mapbook" portal user add bench --data "$dir/data" --password-stdin >/dev/null
    "$mapbook" portal serve --data "$dir/data" --self-signed --port 0 --log-level error --stop-after 1800 > "$dir/server.out" 2>"$dir/server.err" &
    server=$!
    trap 'kill $server 2>/dev/null || true' EXIT
    for _ in $(seq 1 100); do grep -q "Mapbook portal on" "$dir/server.out" 2>/dev/null && break; sleep 0.2; done
    url=$(sed -n 's/^Mapbook portal on \(https:[^ ]*\).*/\1/p' "$dir/server.out")
    cert=$dir/data/tls/certificate.pem
    urls=("$url" "$url" "$url")
fi
homes=(a b c)
for i in 0 1 2; do
    echo 'bench-password-1' | MAPBOOK_HOME=$dir/${homes[$i]} "$mapbook" portal signin "${urls[$i]}" --user bench --password-stdin --ca-cert "$cert" >/dev/null
done
id=$(MAPBOOK_HOME=$dir/c "$mapbook" portal publish "$pkgdir/points.mmpk" 2>/dev/null)
for home in a b; do MAPBOOK_HOME=$dir/$home "$mapbook" portal download "$id" >/dev/null 2>&1; done
# First syncs make the working copies and bring both devices to the same generation.
for home in a b; do MAPBOOK_HOME=$dir/$home "$mapbook" sync >/dev/null 2>&1; done
pkg=$dir/a/downloads/$id.mmpk
now() { date +%s%N; }
: > "$dir/times.txt"
for run in $(seq "$runs"); do
    base=$(( (run - 1) * edits * 3 + 10 ))
    for i in $(seq 0 $((edits / 3 - 1))); do
        MAPBOOK_HOME=$dir/a "$mapbook" edit update "$pkg" --layer points $((base + i * 3)) --set kind=edited --set "value=$i" >/dev/null
        MAPBOOK_HOME=$dir/a "$mapbook" edit delete "$pkg" --layer points $((base + i * 3 + 1)) >/dev/null
    done
    for i in $(seq 1 $((edits - 2 * (edits / 3)))); do
        MAPBOOK_HOME=$dir/a "$mapbook" edit add "$pkg" --layer points "--at=-100.$i,40.$run" --set kind=new >/dev/null
    done
    t0=$(now); MAPBOOK_HOME=$dir/a "$mapbook" sync >/dev/null 2>&1; t1=$(now)
    MAPBOOK_HOME=$dir/b "$mapbook" sync >/dev/null 2>&1; t2=$(now)
    rm -rf "$dir/c/downloads"
    MAPBOOK_HOME=$dir/c "$mapbook" portal download "$id" >/dev/null 2>&1; t3=$(now)
    echo "$(( (t1 - t0) / 1000000 )) $(( (t2 - t1) / 1000000 )) $(( (t3 - t2) / 1000000 ))" | tee -a "$dir/times.txt"
done
size=$(stat -c %s "$pkgdir/points.mmpk")
python3 - "$dir/times.txt" "$edits" "$size" <<'PY'
import statistics, sys
rows = [list(map(int, l.split())) for l in open(sys.argv[1]) if l.strip()]
med = lambda k: statistics.median(r[k] for r in rows)
print(f"{sys.argv[2]} edits, {len(rows)} runs (median, ms): sync sending them {med(0)}, sync receiving them {med(1)}; "
      f"peer: downloading the {int(sys.argv[3]) / 1e6:.1f} MB package again {med(2)}")
PY
