#!/usr/bin/env bash
# The portal past one machine under load (issue 20), in one run, on loopback:
#
#   1. one process with the embedded store (SQLite and folders): the peer;
#   2. three processes behind nginx on PostgreSQL and Swift's S3 (tools/portal/cluster.sh),
#      one of them killed with SIGKILL a third of the way in and started again 5 s later;
#   3. the three processes again while PostgreSQL is stopped for 5 s and resumed.
#
# Each run: CONNECTIONS wrk connections for SECONDS doing the portal-load mix (search, item
# JSON, 256 KiB ranges; tools/bench/portal/load.lua) and, beside them, UPLOADERS clients that
# publish in three parts and download whole, retrying what fails
# (tools/bench/portal/retrying_client.py). After runs 1 and 2, every item the search shows is
# downloaded and hashed against its recorded SHA-256. The figures go in docs/PERFORMANCE.md
# and docs/RELIABILITY.md.
#
#   tools/bench/portal-cluster-load.sh [CONNECTIONS=200] [SECONDS=60]
#
# Work files go to PORTAL_BENCH_DIR (default /tmp/mapbook-cluster-bench). Needs wrk, curl,
# nginx, PostgreSQL 15 and OpenStack Swift (tools/setup). MAPBOOK=path runs that binary.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
connections=${1:-200}
seconds=${2:-60}
uploaders=${UPLOADERS:-4}
dir=${PORTAL_BENCH_DIR:-/tmp/mapbook-cluster-bench}
command -v wrk >/dev/null || { echo "portal-cluster-load: wrk is missing (apt-get install wrk)" >&2; exit 1; }

if [ -n "${MAPBOOK:-}" ]; then
    mapbook=$MAPBOOK
else
    swift build -c release --static-swift-stdlib --product mapbook >&2
    mapbook=$root/.build/release/mapbook
fi

package=$(tools/bench/portal/sample-package.sh "$dir" "$mapbook")
size=$(stat -c %s "$package")

tools/portal/cluster.sh down "$dir/cluster" 2>/dev/null || true
rm -rf "$dir/cluster" "$dir/single"
mkdir -p "$dir"

# The embedded peer.
echo 'bench-password-1' | "$mapbook" portal user add bench --data "$dir/single" --password-stdin >/dev/null
"$mapbook" portal serve --data "$dir/single" --self-signed --port 0 --log-level error --stop-after $((seconds * 4 + 900)) >"$dir/single.out" 2>"$dir/single.err" &
single=$!
# The cluster.
cluster_url=$(MAPBOOK=$mapbook PORTAL_STOP_AFTER=$((seconds * 4 + 900)) tools/portal/cluster.sh up "$dir/cluster" 3)
trap 'kill $single 2>/dev/null || true; tools/portal/cluster.sh down "$dir/cluster" >/dev/null 2>&1 || true' EXIT
# shellcheck disable=SC1091
source "$dir/cluster/env"
echo 'bench-password-1' | "$mapbook" portal user add bench --data "$dir/cluster/admin" --store "$PORTAL_STORE" --password-stdin >/dev/null
for _ in $(seq 1 100); do grep -q "Mapbook portal on" "$dir/single.out" 2>/dev/null && break; sleep 0.2; done
single_url=$(sed -n 's/^Mapbook portal on \(https:[^ ]*\).*/\1/p' "$dir/single.out")

token_for() { curl -sk -X POST "$1/sharing/rest/generateToken" -d 'username=bench&password=bench-password-1&expiration=600&f=json' | sed -n 's/.*"token":"\([^"]*\)".*/\1/p'; }

# Twenty published copies under different titles, shared with the organization; a wrk script
# for them.
prepare() {
    local url=$1 name=$2 token ids=() id title
    token=$(token_for "$url")
    local titles=(Water Sewer Storm Hydrants Valves Mains Laterals Parcels Streets Addresses)
    for i in $(seq 1 20); do
        title="${titles[$((i % 10))]} District $i"
        id=$(curl -sk -H "X-Esri-Authorization: Bearer $token" -F f=json -F "title=$title" -F "type=Mobile Map Package" -F "file=@$package" \
            "$url/sharing/rest/content/users/bench/addItem" | sed -n 's/.*"id":"\([0-9a-f]*\)".*/\1/p')
        curl -sk -H "X-Esri-Authorization: Bearer $token" -d "f=json&items=$id&org=true" "$url/sharing/rest/content/users/bench/shareItems" >/dev/null
        ids+=("\"$id\"")
    done
    sed -e "s/@TOKEN@/$token/" -e "s/@IDS@/$(IFS=,; echo "${ids[*]}")/" -e "s/@SIZE@/$size/" tools/bench/portal/load.lua >"$dir/$name.lua"
    echo "$token" >"$dir/$name.token"
}
prepare "$single_url" single
prepare "$cluster_url" cluster

# One run: wrk and the retrying uploaders side by side.
run() {
    local url=$1 name=$2 token
    token=$(cat "$dir/${name%%-*}.token")
    python3 tools/bench/portal/retrying_client.py "$url" "$token" "$package" "$seconds" "$uploaders" "$dir/$name-clients.json" &
    local clients=$!
    wrk -t2 -c"$connections" -d"${seconds}s" --timeout 10s --latency -s "$dir/${name%%-*}.lua" "$url" >"$dir/$name-wrk.txt"
    wait $clients
    echo "== $name: $connections connections for $seconds s, $uploaders retrying uploaders"
    grep -E "^(requests sent|errors|latency)" "$dir/$name-wrk.txt"
    python3 -c 'import json,sys; print("uploaders:", json.dumps(json.load(open(sys.argv[1]))))' "$dir/$name-clients.json"
}
verify() {
    local url=$1 name=$2
    python3 tools/bench/portal/retrying_client.py verify "$url" "$(cat "$dir/$name.token")" "$dir/$name-verify.json"
    python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print("afterwards: %d items, %d corrupt, %d unreadable %s" % (r["items"], len(r["corrupt"]), len(r["unreadable"]), r["unreadable"][:3]))' "$dir/$name-verify.json"
}

run "$single_url" single
verify "$single_url" single

# The cluster, with process 2 killed a third of the way in and started again 5 s later.
( sleep $((seconds / 3)); echo "$(date +%s.%N) kill" >"$dir/kill.log"; tools/portal/cluster.sh kill "$dir/cluster" 2
  sleep 5; tools/portal/cluster.sh revive "$dir/cluster" 2 >/dev/null; echo "$(date +%s.%N) revived" >>"$dir/kill.log" ) &
killer=$!
run "$cluster_url" cluster-kill
wait $killer
echo "process 2: SIGKILL at $((seconds / 3)) s, started again 5 s later ($(tr '\n' ' ' <"$dir/kill.log"))"
verify "$cluster_url" cluster

# PostgreSQL stopped for 5 s a third of the way into a run, then resumed: what /health and a
# request say meanwhile, and how long after the resume the processes answer again by themselves.
pg_seconds=$((seconds / 2 > 20 ? seconds / 2 : 20))
(
    sleep $((pg_seconds / 3))
    stopped=$(date +%s.%N)
    "$root/tools/pg/postgres.sh" stop "$dir/cluster/pg"
    # What a client and a balancer are told meanwhile (each waits out the store's patience).
    curl -sk "$cluster_url/sharing/rest/community/self?f=json&token=$(cat "$dir/cluster.token")" >"$dir/pg-down-answer.json" &
    curl -sk -o /dev/null -w '%{http_code}' "$(tools/portal/cluster.sh url "$dir/cluster" 1)/health" >"$dir/pg-down-health.txt" &
    python3 -c 'import sys, time; time.sleep(max(0, float(sys.argv[1]) + 5 - time.time()))' "$stopped"
    "$root/tools/pg/postgres.sh" resume "$dir/cluster/pg" >/dev/null
    resumed=$(date +%s.%N)
    wait
    until curl -skf "$(tools/portal/cluster.sh url "$dir/cluster" 1)/health" >/dev/null && curl -skf "$(tools/portal/cluster.sh url "$dir/cluster" 2)/health" >/dev/null \
        && curl -skf "$(tools/portal/cluster.sh url "$dir/cluster" 3)/health" >/dev/null; do sleep 0.1; done
    back=$(date +%s.%N)
    python3 -c 'import sys; s, r, b = map(float, sys.argv[1:]); print("PostgreSQL stopped %.1f s; all three processes healthy %.2f s after it was back" % (r - s, b - r))' "$stopped" "$resumed" "$back" >"$dir/pg-restart.txt"
) &
restarter=$!
seconds_saved=$seconds
seconds=$pg_seconds
run "$cluster_url" cluster-pg
seconds=$seconds_saved
wait $restarter
cat "$dir/pg-restart.txt"
echo "while it was down: /health answered HTTP $(cat "$dir/pg-down-health.txt"); a request: $(cut -c1-220 "$dir/pg-down-answer.json")"
echo "processes restarted by hand during the PostgreSQL outage: none (pids before and after: $(cat "$dir"/cluster/p*.pid | tr '\n' ' '))"
grep -c "partNumber" "$dir/cluster/s3/proxy.log" | sed 's/^/S3 log: UploadPart requests: /'
grep -c "Range:" "$dir/cluster/s3/proxy.log" | sed 's/^/S3 log: ranged GETs: /'
