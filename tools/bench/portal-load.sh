#!/usr/bin/env bash
# Load on one portal: 200 concurrent clients for 60 s doing search, item JSON and ranged
# downloads (wrk, from Debian's packages), over HTTPS on loopback; the server's resident memory
# sampled every 2 s. Prints wrk's latency distribution, throughput and error counts, and the
# memory timeline. The figures go in docs/PERFORMANCE.md ("Portal").
#
#   tools/bench/portal-load.sh [CONNECTIONS] [SECONDS]
#
# Then the peer, in the same run: 256 KiB ranges of one package from the portal's /data and
# from nginx serving the same file over HTTPS with the same certificate (skipped without nginx).
#
# Work files go to PORTAL_BENCH_DIR (default /tmp/mapbook-portal-bench). Needs wrk and curl.
# MAPBOOK=path/to/mapbook runs that binary instead of building this checkout's.
set -euo pipefail
cd "$(dirname "$0")/../.."
connections=${1:-200}
seconds=${2:-60}
dir=${PORTAL_BENCH_DIR:-/tmp/mapbook-portal-bench}
command -v wrk >/dev/null || { echo "portal-load: wrk is missing (apt-get install wrk)" >&2; exit 1; }

# MAPBOOK=path runs another build (to compare two commits in one session).
if [ -n "${MAPBOOK:-}" ]; then
    mapbook=$MAPBOOK
else
    swift build -c release --product mapbook >&2
    mapbook=.build/release/mapbook
fi

# The package to serve: the Naperville sample (5 MB).
package=$(tools/bench/portal/sample-package.sh "$dir" "$mapbook")
size=$(stat -c %s "$package")

rm -rf "$dir/data"
echo 'bench-password-1' | "$mapbook" portal user add bench --data "$dir/data" --password-stdin >/dev/null
"$mapbook" portal serve --data "$dir/data" --self-signed --port 0 --log-level error --stop-after $((seconds + 600)) > "$dir/server.out" 2>"$dir/server.err" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do grep -q "Mapbook portal on" "$dir/server.out" 2>/dev/null && break; sleep 0.2; done
url=$(sed -n 's/^Mapbook portal on \(https:[^ ]*\).*/\1/p' "$dir/server.out")
token=$(curl -sk -X POST "$url/sharing/rest/generateToken" -d 'username=bench&password=bench-password-1&expiration=600&f=json' | sed -n 's/.*"token":"\([^"]*\)".*/\1/p')

# Twenty published copies under different titles, shared with the organization.
ids=()
titles=(Water Sewer Storm Hydrants Valves Mains Laterals Parcels Streets Addresses)
for i in $(seq 1 20); do
    title="${titles[$((i % 10))]} District $i"
    id=$(curl -sk -H "X-Esri-Authorization: Bearer $token" -F f=json -F "title=$title" -F "type=Mobile Map Package" -F "file=@$package" \
        "$url/sharing/rest/content/users/bench/addItem" | sed -n 's/.*"id":"\([0-9a-f]*\)".*/\1/p')
    curl -sk -H "X-Esri-Authorization: Bearer $token" -d "f=json&items=$id&org=true" "$url/sharing/rest/content/users/bench/shareItems" >/dev/null
    ids+=("\"$id\"")
done

lua=$dir/load.lua
sed -e "s/@TOKEN@/$token/" -e "s/@IDS@/$(IFS=,; echo "${ids[*]}")/" -e "s/@SIZE@/$size/" tools/bench/portal/load.lua > "$lua"

rss_log=$dir/rss.txt
: > "$rss_log"
( t=0; while kill -0 $server 2>/dev/null; do
    echo "$t $(awk '/VmRSS/ {r=$2} /RssAnon/ {a=$2} END {print r, a}' /proc/$server/status)" >> "$rss_log"; sleep 2; t=$((t + 2))
  done ) &
sampler=$!

echo "portal-load: $connections connections, $seconds s, $url, 20 items of $size bytes" >&2
wrk -t2 -c"$connections" -d"${seconds}s" --timeout 10s --latency -s "$lua" "$url"
kill $sampler 2>/dev/null || true
echo
echo "server RSS (KiB) every 2 s from the start of the load:"
awk '{printf "%s:%s ", $1, $2} END {print ""}' "$rss_log"
awk 'NR==1 {first=$2} {if ($2>max) max=$2; if ($3>anon) anon=$3; last=$2} END {printf "first %d KiB, peak %d KiB, last %d KiB; peak anonymous %d KiB (the rest is mapped files: the packages served, the binary)\n", first, max, last, anon}' "$rss_log"

if command -v nginx >/dev/null; then
    peer_seconds=$(( seconds / 2 ))
    mkdir -p "$dir/nginx/www"
    cp "$package" "$dir/nginx/www/package.mmpk"
    cat > "$dir/nginx/nginx.conf" <<CONF
worker_processes 2;
pid $dir/nginx/nginx.pid;
error_log $dir/nginx/error.log;
events { worker_connections 1024; }
http {
    access_log off;
    server {
        listen 127.0.0.1:18443 ssl;
        ssl_certificate $dir/data/tls/certificate.pem;
        ssl_certificate_key $dir/data/tls/key.pem;
        root $dir/nginx/www;
    }
}
CONF
    nginx -c "$dir/nginx/nginx.conf"
    trap 'kill $server 2>/dev/null || true; nginx -c "$dir/nginx/nginx.conf" -s stop 2>/dev/null || true' EXIT
    first=$(echo "${ids[0]}" | tr -d '"')
    for target in "portal $url /sharing/rest/content/items/$first/data" "nginx https://127.0.0.1:18443 /package.mmpk"; do
        set -- $target
        sed -e "s|@PATH@|$3|" -e "s/@SIZE@/$size/" -e "s/@TOKEN@/$token/" tools/bench/portal/ranges.lua > "$dir/ranges.lua"
        echo
        echo "peer comparison, $1: $connections connections, ${peer_seconds} s of 256 KiB ranges of one $size-byte file"
        wrk -t2 -c"$connections" -d"${peer_seconds}s" --timeout 10s -s "$dir/ranges.lua" "$2" | tail -1
    done
    nginx -c "$dir/nginx/nginx.conf" -s stop
fi
