#!/usr/bin/env bash
# A throwaway S3 server on loopback for the portal's tests and benchmarks (issue 20): OpenStack
# Swift from Debian (swift-proxy, swift-object, swift-container, swift-account; tools/setup
# installs them) as a one-node installation whose proxy speaks the S3 API (the s3api
# middleware, with tempauth checking the signatures). A real object store: multipart uploads
# become static large objects, ranged GETs are served by the object server.
#
#   tools/s3/swift-s3.sh start DIR   # rings, configuration and storage in DIR, servers on free
#                                    # ports; prints the endpoint URL
#   tools/s3/swift-s3.sh stop DIR    # stop the servers (DIR stays; remove it after)
#   tools/s3/swift-s3.sh resume DIR  # start stopped servers again, on the same ports
#
# Credentials: access key `mapbook:portal`, secret `mapbook-secret`, region `us-east-1`.
# The proxy's log (every S3 request, with its method, path and Range) is DIR/proxy.log.
set -euo pipefail
cmd=${1:?start or stop}
dir=${2:?a folder}
# Starts the log listener, memcached and the four servers of DIR's configuration and waits
# for the proxy to answer; prints its URL.
serve() {
    # Swift logs through syslog: a small listener on a UDP port of our own writes the proxy's
    # lines (one per request: method, path, status, Range) to DIR/proxy.log.
    setsid python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", int(sys.argv[1])))
with open(sys.argv[2], "ab", buffering=0) as log:
    while True:
        log.write(s.recv(65536).rstrip(b"\0\n") + b"\n")
' "$logport" "$dir/proxy.log" </dev/null >/dev/null 2>&1 &
    echo $! >"$dir/run/log.pid"
    # tempauth keeps its tokens in memcached (Debian's), one of our own on a free port.
    setsid memcached -l 127.0.0.1 -p "$memcache" -U 0 -m 64 -u "$user" </dev/null >"$dir/memcached.out" 2>&1 &
    echo $! >"$dir/run/memcached.pid"
    # Each server runs detached with its own output; its pid goes in DIR/run.
    for kind in account container object proxy; do
        setsid "swift-$kind-server" "$dir/conf/$kind-server.conf" </dev/null >"$dir/$kind.out" 2>&1 &
        echo $! >"$dir/run/$kind.pid"
    done
    echo "$proxy" >"$dir/port"
    # The proxy answers its healthcheck before the servers behind it listen: on a loaded
    # machine a request in between fails with no status, so every port must accept first.
    for _ in $(seq 1 150); do
        if curl -fsS "http://127.0.0.1:$proxy/healthcheck" >/dev/null 2>&1 \
            && (exec 3<>"/dev/tcp/127.0.0.1/$object") 2>/dev/null \
            && (exec 3<>"/dev/tcp/127.0.0.1/$container") 2>/dev/null \
            && (exec 3<>"/dev/tcp/127.0.0.1/$account") 2>/dev/null; then
            echo "http://127.0.0.1:$proxy"
            return 0
        fi
        sleep 0.2
    done
    echo "swift-s3.sh: the Swift proxy did not answer on port $proxy within 30 s" >&2
    cat "$dir"/*.out >&2
    "$0" stop "$dir"
    return 1
}

case "$cmd" in
start)
    command -v swift-proxy-server >/dev/null && command -v swift-object-server >/dev/null && command -v memcached >/dev/null \
        || { echo "swift-s3.sh: OpenStack Swift is not installed (tools/setup installs swift-proxy, swift-object, swift-container, swift-account and memcached)" >&2; exit 1; }
    mkdir -p "$dir/conf" "$dir/devices/d1" "$dir/run"
    dir=$(cd "$dir" && pwd)
    free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
    proxy=$(free_port); object=$(free_port); container=$(free_port); account=$(free_port); memcache=$(free_port); logport=$(free_port)
    user=$(id -un)
    cat >"$dir/conf/swift.conf" <<EOF
[swift-hash]
swift_hash_path_suffix = mapbook-test
swift_hash_path_prefix = mapbook-test
[storage-policy:0]
name = Policy-0
default = yes
EOF
    # One device, one replica, one zone: rings of 2^6 partitions.
    for kind in object container account; do
        port_var=$kind; port=${!port_var}
        swift-ring-builder "$dir/conf/$kind.builder" create 6 1 1 >/dev/null
        swift-ring-builder "$dir/conf/$kind.builder" add r1z1-127.0.0.1:"$port"/d1 100 >/dev/null
        swift-ring-builder "$dir/conf/$kind.builder" rebalance >/dev/null 2>&1 || true
        cat >"$dir/conf/$kind-server.conf" <<EOF
[DEFAULT]
bind_ip = 127.0.0.1
bind_port = $port
workers = 1
user = $user
swift_dir = $dir/conf
devices = $dir/devices
mount_check = false
log_name = $kind-server
log_facility = LOG_LOCAL0
log_level = WARNING

[pipeline:main]
pipeline = $kind-server

[app:$kind-server]
use = egg:swift#$kind
EOF
    done
    cat >"$dir/conf/proxy-server.conf" <<EOF
[DEFAULT]
bind_ip = 127.0.0.1
bind_port = $proxy
workers = 1
user = $user
swift_dir = $dir/conf
log_name = proxy-server
log_level = INFO
log_udp_host = 127.0.0.1
log_udp_port = $logport

[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats s3api tempauth copy slo dlo proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true

[filter:s3api]
use = egg:swift#s3api
location = us-east-1
s3_acl = false
# Parts of 5 MiB and more, as AWS S3 requires of every part but the last.
min_segment_size = 5242880

[filter:tempauth]
use = egg:swift#tempauth
user_mapbook_portal = mapbook-secret .admin

[filter:catch_errors]
use = egg:swift#catch_errors
[filter:gatekeeper]
use = egg:swift#gatekeeper
[filter:healthcheck]
use = egg:swift#healthcheck
[filter:proxy-logging]
use = egg:swift#proxy_logging
access_log_udp_host = 127.0.0.1
log_udp_port = $logport
access_log_headers = true
access_log_headers_only = Range
[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:$memcache
[filter:listing_formats]
use = egg:swift#listing_formats
[filter:copy]
use = egg:swift#copy
[filter:slo]
use = egg:swift#slo
[filter:dlo]
use = egg:swift#dlo
EOF
    echo "proxy=$proxy object=$object container=$container account=$account memcache=$memcache logport=$logport user=$user" >"$dir/ports"
    serve
    ;;
resume)
    # The same servers on the same ports, after `stop` (the data kept).
    dir=$(cd "$dir" && pwd)
    # shellcheck disable=SC1091
    source "$dir/ports"
    serve
    ;;
stop)
    for f in "$dir"/run/*.pid; do
        [ -f "$f" ] || continue
        pid=$(cat "$f")
        # Each server forks workers under its own session: stop the whole group.
        kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
        rm -f "$f"
    done
    ;;
*)
    echo "swift-s3.sh: start, stop or resume" >&2
    exit 64
    ;;
esac
