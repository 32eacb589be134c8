#!/usr/bin/env bash
# Routing (issue 18): mapbook's contraction hierarchies against pgRouting's pgr_dijkstra and
# pgr_bdAstar on the same random pairs, with pgRouting's own topology built from the same
# source layer; the routes' costs compared (within 0.1%), query latency, the nodes each search
# settles, preprocessing time and sizes. Two networks: the TIGER roads of Manassas Park
# (../shared/fixtures/tippecanoe-edge, lines not split where streets meet), by distance, and a
# generated city-like grid of GRID_EDGES block-long lines (tools/bench/make-grid-network.py),
# by travel time (its streets' speeds; pgRouting's costs are length / speed) and by distance.
#
#   tools/bench/route-vs-pgrouting.sh [PAIRS=1000] [GRID_EDGES=1000000] [GRID_PG_PAIRS=1000]
#
# pgRouting reads its whole edge table for every query (about a second each on the 1,000,000-
# edge grid), so on the grid pgr_dijkstra answers GRID_PG_PAIRS of the pairs (the first ones)
# by each metric, the two metrics at once, and pgr_bdAstar the first 100 by time. PostgreSQL 15 with PostGIS and pgRouting comes
# from Debian (postgresql-15-pgrouting; installed here when run as root); the script starts it
# as the unprivileged `postgres` user (initdb refuses root) on a free loopback port, in
# ROUTE_BENCH_DIR (default /tmp/mapbook-route-bench), and stops it at the end. The figures go
# in docs/PERFORMANCE.md ("Routing").
set -euo pipefail
cd "$(dirname "$0")/../.."
pairs=${1:-1000}
grid_edges=${2:-1000000}
grid_pg_pairs=${3:-1000}
dir=${ROUTE_BENCH_DIR:-/tmp/mapbook-route-bench}
tiger=../shared/fixtures/tippecanoe-edge/tests/tl_2018_51685_roads/in.json
[ -f "$tiger" ] || { echo "route-vs-pgrouting: $tiger is missing (../shared/fixtures)" >&2; exit 1; }
pgbin=/usr/lib/postgresql/15/bin
if [ ! -x "$pgbin/initdb" ] || [ ! -f /usr/share/postgresql/15/extension/pgrouting.control ] || ! command -v ogr2ogr >/dev/null; then
    if [ "$(id -u)" = 0 ]; then
        apt-get install -y -qq --no-install-recommends postgresql-15-pgrouting postgresql-15-postgis-3 gdal-bin >/dev/null
    else
        echo "route-vs-pgrouting: needs PostgreSQL 15 with pgRouting and GDAL: sudo apt-get install postgresql-15-pgrouting postgresql-15-postgis-3 gdal-bin" >&2
        exit 1
    fi
fi
(cd tools/bench && swift build -c release --product route-queries >&2)
rq=tools/bench/.build/release/route-queries
mkdir -p "$dir"
chmod 755 "$dir"

# The networks, ours.
grid=$dir/grid-$grid_edges.geojson
[ -s "$grid" ] || python3 tools/bench/make-grid-network.py "$grid" "$grid_edges"
echo "== mapbook: building the networks"
echo "-- TIGER roads"; "$rq" build "$tiger" "$dir/tiger.mnet" 1
echo "-- grid (by time and distance)"; "$rq" build "$grid" "$dir/grid.mnet" 1
echo "== mapbook: $pairs random pairs each"
echo "-- TIGER roads, by distance"; "$rq" query "$dir/tiger.mnet" "$pairs" "$dir/tiger-pairs.csv"
echo "-- grid, by time"; "$rq" query "$dir/grid.mnet" "$pairs" "$dir/grid-pairs.csv" 18 time
echo "-- grid, by distance"; "$rq" query "$dir/grid.mnet" "$pairs" "$dir/grid-distance-pairs.csv" 18 distance

# PostgreSQL, as the postgres user when run as root.
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
rm -rf "$dir/pg"
mkdir -p "$dir/pg"
[ "$(id -u)" = 0 ] && chown postgres "$dir/pg"
as_pg "$pgbin/initdb" -D "$dir/pg" -A trust -U bench >/dev/null
as_pg "$pgbin/pg_ctl" -D "$dir/pg" -l "$dir/pg/server.log" -w \
    -o "-p $port -k $dir/pg -c listen_addresses=127.0.0.1 -c shared_buffers=1GB -c work_mem=256MB" start >/dev/null
trap 'as_pg "$pgbin/pg_ctl" -D "$dir/pg" -m fast stop >/dev/null 2>&1 || true' EXIT
export PGOPTIONS='-c client_min_messages=warning'
sql() { psql -h 127.0.0.1 -p "$port" -U bench -d bench -v ON_ERROR_STOP=1 -qAt "$@"; }
psql -h 127.0.0.1 -p "$port" -U bench -d postgres -qc "CREATE DATABASE bench"
sql -c "CREATE EXTENSION postgis; CREATE EXTENSION pgrouting;"
echo "== pgRouting $(sql -c 'SELECT pgr_version()'), PostGIS $(sql -c 'SELECT postgis_lib_version()')"

# One source layer into pgRouting: the lines as they are (coordinates taken as WGS84, as mapbook
# reads them: the TIGER file says NAD83, a metre or less away here), then pgRouting's own topology.
# TIGER lines run through intersections with a shared vertex: they go in as segments, which
# pgr_createTopology joins at every shared vertex, as mapbook does; the grid's lines meet at
# their ends already.
# Tolerance 1 m: 0.00001 degrees. Costs are ellipsoidal lengths (PostGIS's geography), or with
# `time` seconds at the line's speed (km/h); one-way streets get -1 against their way.
load() {
    local name=$1 file=$2 node=$3 metric=$4
    ogr2ogr -f PostgreSQL "PG:host=127.0.0.1 port=$port user=bench dbname=bench" "$file" -nln "${name}_src" \
        -lco GEOMETRY_NAME=geom -lco FID=id -nlt LINESTRING -lco SPATIAL_INDEX=GIST -a_srs EPSG:4326 >/dev/null
    local t0=$(date +%s.%N)
    if [ "$node" = node ]; then
        # Every segment an edge: pgr_createTopology then joins them wherever a vertex is
        # shared, as mapbook's nodes do. (pgr_nodeNetwork misses shared vertices where TIGER
        # lines overlap, co-signed routes, and its routes come out longer.)
        sql -c "CREATE TABLE ${name} AS SELECT row_number() OVER ()::integer AS id, d.geom, 'B'::text AS oneway
                FROM ${name}_src s, LATERAL ST_DumpSegments(s.geom) d"
    else
        sql -c "CREATE TABLE ${name} AS SELECT id, geom, oneway, speed FROM ${name}_src"
    fi
    local cost="ST_Length(geom::geography)"
    [ "$metric" = time ] && cost="ST_Length(geom::geography) / (speed / 3.6)"
    # cost and reverse_cost by the network's metric; length and reverse_length by distance.
    sql -c "ALTER TABLE ${name} ADD COLUMN source integer, ADD COLUMN target integer, ADD COLUMN cost float8, ADD COLUMN reverse_cost float8,
                ADD COLUMN length float8, ADD COLUMN reverse_length float8,
                ADD COLUMN x1 float8, ADD COLUMN y1 float8, ADD COLUMN x2 float8, ADD COLUMN y2 float8;
            UPDATE ${name} SET cost = CASE WHEN oneway = 'TF' THEN -1 ELSE $cost END,
                reverse_cost = CASE WHEN oneway = 'FT' THEN -1 ELSE $cost END,
                length = CASE WHEN oneway = 'TF' THEN -1 ELSE ST_Length(geom::geography) END,
                reverse_length = CASE WHEN oneway = 'FT' THEN -1 ELSE ST_Length(geom::geography) END,
                x1 = ST_X(ST_StartPoint(geom)), y1 = ST_Y(ST_StartPoint(geom)), x2 = ST_X(ST_EndPoint(geom)), y2 = ST_Y(ST_EndPoint(geom));"
    sql -c "SELECT pgr_createTopology('${name}', 0.00001, 'geom', 'id')" >/dev/null
    sql -c "CREATE INDEX ON ${name}_vertices_pgr USING gist (the_geom); ANALYZE ${name}; ANALYZE ${name}_vertices_pgr"
    local t1=$(date +%s.%N)
    echo "-- $name: $(sql -c "SELECT count(*) FROM ${name}") edges, $(sql -c "SELECT count(*) FROM ${name}_vertices_pgr") vertices; topology in $(python3 -c "print(round($t1 - $t0, 2))") s, tables $(sql -c "SELECT pg_size_pretty(pg_total_relation_size('${name}') + pg_total_relation_size('${name}_vertices_pgr'))")"
}
echo "== pgRouting: loading and topology"
load tiger "$tiger" node distance
load grid "$grid" plain time

sql <<'SQL'
CREATE FUNCTION bench(net text, pairs text, kind text, limit_pairs int, by_length boolean) RETURNS TABLE(n int, cost float8, ms float8) AS $$
DECLARE r record; t0 timestamptz; edges text;
BEGIN
  edges := format(CASE WHEN by_length THEN 'SELECT id, source, target, length AS cost, reverse_length AS reverse_cost, x1, y1, x2, y2 FROM %I'
                  ELSE 'SELECT id, source, target, cost, reverse_cost, x1, y1, x2, y2 FROM %I' END, net);
  FOR r IN EXECUTE format('SELECT n, s, t FROM %I ORDER BY n LIMIT %s', pairs, limit_pairs) LOOP
    t0 := clock_timestamp();
    IF kind = 'dijkstra' THEN
      SELECT max(d.agg_cost) INTO cost FROM pgr_dijkstra(edges, r.s, r.t, true) d;
    ELSE
      -- Euclidean distance in degrees (heuristic 4), scaled to metres below the shortest a
      -- degree is here (or to seconds at the fastest speed, 90 km/h), so it never overestimates.
      SELECT max(d.agg_cost) INTO cost FROM pgr_bdAstar(edges, r.s, r.t, true, heuristic => 4, factor => CASE WHEN net = 'grid' THEN 80000 / 25.0 ELSE 80000 END) d;
    END IF;
    n := r.n; ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
    RETURN NEXT;
  END LOOP;
END $$ LANGUAGE plpgsql;
SQL

# NET, the pairs' CSV, their table, pairs for pgr_dijkstra and for pgr_bdAstar, the column
# compared (metres or seconds).
compare() {
    local net=$1 csv=$2 table=$3 limit=$4 astar_limit=$5 column=$6
    local by_length=false
    [ "$column" = metres ] && by_length=true
    sql -c "CREATE TABLE ${table} (n serial, from_lon float8, from_lat float8, to_lon float8, to_lat float8, metres float8, seconds float8, settled_hierarchy int, settled_dijkstra int, s bigint, t bigint)"
    sql -c "\\copy ${table} (from_lon, from_lat, to_lon, to_lat, metres, seconds, settled_hierarchy, settled_dijkstra) FROM '$csv' CSV HEADER"
    # The pair's ends: pgRouting's vertex at each node of ours (its topology, not ours).
    sql -c "UPDATE ${table} p SET
        s = (SELECT id FROM ${net}_vertices_pgr v ORDER BY v.the_geom <-> ST_SetSRID(ST_MakePoint(p.from_lon, p.from_lat), 4326) LIMIT 1),
        t = (SELECT id FROM ${net}_vertices_pgr v ORDER BY v.the_geom <-> ST_SetSRID(ST_MakePoint(p.to_lon, p.to_lat), 4326) LIMIT 1)"
    for kind in dijkstra bdAstar; do
        local n=$limit
        [ "$kind" = bdAstar ] && n=$astar_limit
        [ "$n" -gt 0 ] || continue
        sql -c "CREATE TABLE ${table}_${kind} AS SELECT * FROM bench('${net}', '${table}', '${kind}', ${n}, ${by_length})"
        sql -F ' ' -c "SELECT '$net $kind: ' || count(*) || ' pairs, p50 ' || round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 2)
                || ' ms, p99 ' || round(percentile_cont(0.99) WITHIN GROUP (ORDER BY ms)::numeric, 2) || ' ms; costs within 0.1% of mapbook''s: '
                || count(*) FILTER (WHERE abs(b.cost - p.${column}) <= 0.001 * p.${column}) || ', differing: '
                || count(*) FILTER (WHERE abs(b.cost - p.${column}) > 0.001 * p.${column}) || ' by cost, '
                || count(*) FILTER (WHERE b.cost IS NULL) || ' where pgRouting finds no route; largest difference '
                || coalesce(round((max(abs(b.cost - p.${column}) / nullif(p.${column}, 0)) * 100)::numeric, 4)::text, '-') || '%'
                FROM ${table}_${kind} b JOIN ${table} p USING (n)"
    done
    sql -c "SELECT 'largest differences, pgRouting / mapbook ${column}: ' || coalesce(string_agg(x.pg || ' / ' || x.ours, ', '), 'none')
            FROM (SELECT round(b.cost::numeric, 1)::text AS pg, round(p.${column}::numeric, 1)::text AS ours
                  FROM ${table}_dijkstra b JOIN ${table} p USING (n)
                  WHERE abs(b.cost - p.${column}) > 0.001 * p.${column}
                  ORDER BY abs(b.cost - p.${column}) DESC LIMIT 5) x"
}
echo "== pgRouting: the same pairs"
compare tiger "$dir/tiger-pairs.csv" tiger_pairs "$pairs" "$pairs" metres
# The grid's two metrics at once, one query each on the two cores.
compare grid "$dir/grid-pairs.csv" grid_pairs "$grid_pg_pairs" 100 seconds > "$dir/grid-time.out" &
compare grid "$dir/grid-distance-pairs.csv" grid_distance_pairs "$grid_pg_pairs" 0 metres > "$dir/grid-distance.out" &
wait
cat "$dir/grid-time.out" "$dir/grid-distance.out"
