#!/usr/bin/env bash
# Several portal processes behind nginx on loopback, sharing PostgreSQL and an S3 bucket: the
# production shape (docs/PORTAL.md), for tests and benchmarks (issue 20).
#
#   tools/portal/cluster.sh start DIR N    # N processes and nginx; prints nginx's https URL
#   tools/portal/cluster.sh stop DIR       # stops nginx and the processes (DIR stays)
#   tools/portal/cluster.sh kill DIR I     # SIGKILL process I (1..N), as a crash would
#   tools/portal/cluster.sh revive DIR I   # starts process I again on its port
#   tools/portal/cluster.sh url DIR I      # process I's own https URL (bypassing nginx)
#
# `start` takes from the environment: MAPBOOK (the binary; default .build/debug/mapbook),
# PORTAL_STORE (postgres://...), PORTAL_FILES (s3://BUCKET), S3_ENDPOINT, AWS_ACCESS_KEY_ID,
# AWS_SECRET_ACCESS_KEY, AWS_REGION, and PORTAL_STOP_AFTER (seconds; processes stop by
# themselves, for tests). `tools/portal/cluster.sh up DIR N` starts PostgreSQL
# (tools/pg/postgres.sh) and Swift's S3 (tools/s3/swift-s3.sh) in DIR first; `down DIR` stops
# everything `up` started.
#
# Process 1 makes a self-signed certificate; the others and nginx serve the same one, so a
# client trusts DIR/p1/tls/certificate.pem whichever way it comes in. nginx streams bodies
# both ways (no buffering of uploads or downloads on its disk), passes X-Forwarded-For (the
# processes trust 127.0.0.1 as a proxy), and takes a process out for 2 s after it fails to
# connect or its /health answers 502/503; idempotent requests are retried at another process.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cmd=${1:?start, stop, kill, revive, url, up or down}
dir=${2:?a folder}
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

start_process() {
    local i=$1 port=$2
    local data="$dir/p$i" tls=()
    mkdir -p "$data"
    if [ "$i" = 1 ]; then tls=(--self-signed); else tls=(--tls-cert "$dir/p1/tls/certificate.pem" --tls-key "$dir/p1/tls/key.pem"); fi
    local stop=()
    [ -n "${PORTAL_STOP_AFTER:-}" ] && stop=(--stop-after "$PORTAL_STOP_AFTER")
    setsid "$MAPBOOK" portal serve --data "$data" --store "$PORTAL_STORE" --files "$PORTAL_FILES" --s3-endpoint "$S3_ENDPOINT" \
        --host 127.0.0.1 --port "$port" "${tls[@]}" --trusted-proxy 127.0.0.1 --log-level warning "${stop[@]}" \
        </dev/null >"$dir/p$i.out" 2>"$dir/p$i.log" &
    echo $! >"$dir/p$i.pid"
    echo "$port" >"$dir/p$i.port"
    for _ in $(seq 1 600); do
        grep -q "Mapbook portal on" "$dir/p$i.out" 2>/dev/null && return 0
        kill -0 "$(cat "$dir/p$i.pid")" 2>/dev/null || break
        sleep 0.1
    done
    echo "cluster.sh: portal process $i did not start:" >&2
    cat "$dir/p$i.log" >&2
    return 1
}

case "$cmd" in
up)
    n=${3:-3}
    mkdir -p "$dir"
    export PORTAL_STORE; PORTAL_STORE=$("$root/tools/pg/postgres.sh" start "$dir/pg")
    export S3_ENDPOINT; S3_ENDPOINT=$("$root/tools/s3/swift-s3.sh" start "$dir/s3")
    export PORTAL_FILES=s3://mapbook-portal AWS_ACCESS_KEY_ID=mapbook:portal AWS_SECRET_ACCESS_KEY=mapbook-secret AWS_REGION=us-east-1
    {
        echo "export PORTAL_STORE=$PORTAL_STORE S3_ENDPOINT=$S3_ENDPOINT PORTAL_FILES=$PORTAL_FILES"
        echo "export AWS_ACCESS_KEY_ID=$AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY AWS_REGION=$AWS_REGION"
    } >"$dir/env"
    exec "$0" start "$dir" "$n"
    ;;
down)
    "$0" stop "$dir"
    [ -d "$dir/s3" ] && "$root/tools/s3/swift-s3.sh" stop "$dir/s3"
    [ -d "$dir/pg" ] && "$root/tools/pg/postgres.sh" stop "$dir/pg"
    ;;
start)
    n=${3:-3}
    : "${PORTAL_STORE:?set PORTAL_STORE to a postgres:// URL}" "${PORTAL_FILES:?set PORTAL_FILES to s3://BUCKET}" "${S3_ENDPOINT:?set S3_ENDPOINT}"
    MAPBOOK=${MAPBOOK:-$root/.build/debug/mapbook}
    command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || { echo "cluster.sh: nginx is not installed (tools/setup installs nginx-light)" >&2; exit 1; }
    mkdir -p "$dir/nginx/tmp"
    dir=$(cd "$dir" && pwd)
    [ -f "$dir/env" ] || {
        echo "export PORTAL_STORE=$PORTAL_STORE S3_ENDPOINT=$S3_ENDPOINT PORTAL_FILES=$PORTAL_FILES"
        echo "export AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID:-} AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:-} AWS_REGION=${AWS_REGION:-us-east-1}"
    } >"$dir/env"
    echo "export MAPBOOK=$MAPBOOK PORTAL_STOP_AFTER=${PORTAL_STOP_AFTER:-}" >>"$dir/env"
    echo "$n" >"$dir/count"
    upstream=""
    for i in $(seq 1 "$n"); do
        port=$(free_port)
        start_process "$i" "$port"
        upstream+="        server 127.0.0.1:$port max_fails=1 fail_timeout=2s;"$'\n'
    done
    port=$(free_port)
    cat >"$dir/nginx/nginx.conf" <<EOF
worker_processes 2;
pid $dir/nginx/nginx.pid;
error_log $dir/nginx/error.log warn;
events { worker_connections 4096; }
http {
    log_format upstream '\$remote_addr [\$time_local] "\$request" \$status \$body_bytes_sent up=\$upstream_addr \$upstream_status \$request_time';
    access_log $dir/nginx/access.log upstream;
    client_body_temp_path $dir/nginx/tmp/body;
    proxy_temp_path $dir/nginx/tmp/proxy;
    fastcgi_temp_path $dir/nginx/tmp/fastcgi;
    uwsgi_temp_path $dir/nginx/tmp/uwsgi;
    scgi_temp_path $dir/nginx/tmp/scgi;
    client_max_body_size 0;
    upstream portal {
$upstream        keepalive 64;
    }
    server {
        listen 127.0.0.1:$port ssl;
        ssl_certificate $dir/p1/tls/certificate.pem;
        ssl_certificate_key $dir/p1/tls/key.pem;
        location / {
            proxy_pass https://portal;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host \$http_host;
            proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto https;
            proxy_ssl_verify off;
            proxy_ssl_session_reuse on;
            proxy_request_buffering off;
            proxy_buffering off;
            proxy_read_timeout 300s;
            proxy_send_timeout 300s;
            proxy_next_upstream error timeout http_502 http_503;
            proxy_next_upstream_tries 3;
        }
    }
}
EOF
    /usr/sbin/nginx -p "$dir/nginx" -c "$dir/nginx/nginx.conf" -g "daemon on;" 2>"$dir/nginx/start.log" \
        || { cat "$dir/nginx/start.log" "$dir/nginx/error.log" >&2; exit 1; }
    echo "$port" >"$dir/nginx/port"
    for _ in $(seq 1 100); do
        curl -ksf "https://127.0.0.1:$port/health" >/dev/null 2>&1 && { echo "https://127.0.0.1:$port"; exit 0; }
        sleep 0.1
    done
    echo "cluster.sh: nginx does not answer on port $port" >&2
    cat "$dir/nginx/error.log" >&2
    exit 1
    ;;
stop)
    [ -f "$dir/nginx/nginx.pid" ] && kill -QUIT "$(cat "$dir/nginx/nginx.pid")" 2>/dev/null || true
    for f in "$dir"/p*.pid; do
        [ -f "$f" ] || continue
        kill -TERM "$(cat "$f")" 2>/dev/null || true
    done
    for f in "$dir"/p*.pid; do
        [ -f "$f" ] || continue
        for _ in $(seq 1 100); do kill -0 "$(cat "$f")" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$(cat "$f")" 2>/dev/null || true
        rm -f "$f"
    done
    ;;
kill)
    i=${3:?a process number}
    kill -KILL "$(cat "$dir/p$i.pid")"
    ;;
revive)
    i=${3:?a process number}
    # shellcheck disable=SC1091
    source "$dir/env"
    export AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_REGION
    start_process "$i" "$(cat "$dir/p$i.port")"
    ;;
url)
    i=${3:?a process number}
    echo "https://127.0.0.1:$(cat "$dir/p$i.port")"
    ;;
*)
    echo "cluster.sh: start, stop, kill, revive, url, up or down" >&2
    exit 64
    ;;
esac
