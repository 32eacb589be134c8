#!/usr/bin/env bash
# A throwaway PostgreSQL 15 (Debian's, from tools/setup) on loopback, for the portal's tests
# and benchmarks (issue 20):
#
#   tools/pg/postgres.sh start DIR   # initdb in DIR, start on a free port; prints the URL
#   tools/pg/postgres.sh stop DIR    # stop it (DIR stays; remove it after)
#   tools/pg/postgres.sh resume DIR  # start a stopped one again, on the same port
#
# initdb refuses to run as root: as root the cluster belongs to the `postgres` user (made by
# Debian's package). Trust authentication on 127.0.0.1 only; fsync off (a test cluster).
set -euo pipefail
bin=/usr/lib/postgresql/15/bin
cmd=${1:?start or stop}
dir=${2:?a folder}
run=()
if [ "$(id -u)" = 0 ]; then run=(runuser -u postgres --); fi
case "$cmd" in
start)
    [ -x "$bin/initdb" ] || { echo "postgres.sh: PostgreSQL 15 is not installed (tools/setup installs postgresql-15)" >&2; exit 1; }
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres "$dir"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "${run[@]}" "$bin/initdb" -D "$dir/data" -U mapbook --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    "${run[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/data/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories='$dir' -c fsync=off -c max_connections=200" start \
        </dev/null >"$dir/pg_ctl.log" 2>&1 \
        || { cat "$dir/pg_ctl.log" "$dir/data/server.log" >&2; exit 1; }
    "${run[@]}" "$bin/createdb" -h 127.0.0.1 -p "$port" -U mapbook mapbook
    echo "$port" > "$dir/port"
    echo "postgres://mapbook@127.0.0.1:$port/mapbook"
    ;;
resume)
    port=$(cat "$dir/port")
    "${run[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/data/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories='$dir' -c fsync=off -c max_connections=200" start \
        </dev/null >"$dir/pg_ctl.log" 2>&1 \
        || { cat "$dir/pg_ctl.log" "$dir/data/server.log" >&2; exit 1; }
    echo "postgres://mapbook@127.0.0.1:$port/mapbook"
    ;;
stop)
    [ -d "$dir/data" ] && "${run[@]}" "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    ;;
*)
    echo "postgres.sh: start, stop or resume" >&2
    exit 64
    ;;
esac
