#!/usr/bin/env bash
# The PostgreSQL command path for two builds of the CLI alternately, against a running PostgreSQL server that has
# pg_stat_statements loaded (shared_preload_libraries=pg_stat_statements, CREATE EXTENSION pg_stat_statements), one
# line per run: the build, its commands/s, its share of the raw batched INSERT rate measured in the same run, and from
# pg_stat_statements (reset before each run) the server's execution time per stored stream of the batched inserts,
# the total of the request-id lookups and the statements the bench sent per stored stream. Every lanes_run_* schema
# (the bench's own) is dropped after each run. Quote medians.
#
# Usage: postgres-ab.sh BEFORE_JAR AFTER_JAR [RUNS]   (RUNS each, default 3)
# Environment: JDBC_URL (jdbc:postgresql://127.0.0.1:15432/postgres), PSQL (psql -h 127.0.0.1 -p 15432 -U postgres),
# OUT (a folder for each run's output; a temporary one by default).
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 BEFORE_JAR AFTER_JAR [RUNS]" >&2
  exit 2
fi
before=$1
after=$2
runs=${3:-3}
url=${JDBC_URL:-jdbc:postgresql://127.0.0.1:15432/postgres}
psql=${PSQL:-psql -h 127.0.0.1 -p 15432 -U postgres}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"

sql() { $psql -Atq -c "$1"; }

for run in $(seq "$runs"); do
  for build in before after; do
    jar=$before
    [ "$build" = after ] && jar=$after
    sql "SELECT pg_stat_statements_reset()" > /dev/null
    java -jar "$jar" bench --scenario command --store postgres --jdbc-url "$url" --messages 20000 --clients 256 \
      --warmup 5s --aggregates 1000 --raw-baseline 5s > "$out/$build-$run.out" 2>&1 || true
    rate=$(grep -oE '^Throughput +[0-9,]+' "$out/$build-$run.out" | grep -oE '[0-9,]+$' || echo '-')
    ratio=$(grep -oE 'ratio [0-9.]+' "$out/$build-$run.out" || echo 'ratio -')
    inserts=$(sql "SELECT round((sum(total_exec_time) / sum(rows) * 1000)::numeric, 1) || ' us/stream over '
        || sum(rows) || ' streams' FROM pg_stat_statements
        WHERE query LIKE '%FROM unnest(\$1::text[], \$2::text[], \$3::text[], \$4::text[], \$5::int[]%'")
    lookups=$(sql "SELECT coalesce(round(sum(total_exec_time)::numeric), 0) || ' ms in ' || coalesce(sum(calls), 0)
        || ' calls' FROM pg_stat_statements WHERE query LIKE 'WITH k AS (SELECT * FROM unnest%'")
    # every statement the bench's Lanes part sent (the raw baseline's and this script's left out), per stored stream
    statements=$(sql "SELECT round(sum(calls)::numeric / nullif((SELECT sum(rows) FROM pg_stat_statements
        WHERE query LIKE 'INSERT INTO lanes_event_streams%'), 0), 3) || ' statements/stream' FROM pg_stat_statements
        WHERE query NOT LIKE '%lanes_raw_baseline%' AND query NOT LIKE '%pg_stat_statements%'
        AND query NOT LIKE '%pg_namespace%'")
    for schema in $(sql "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'lanes_run_%'"); do
      sql "DROP SCHEMA $schema CASCADE" > /dev/null 2>&1
    done
    echo "$build run $run: $rate commands/s, $ratio | batched inserts $inserts | batched lookups $lookups" \
      "| $statements" \
      "| load $(cut -d' ' -f1 /proc/loadavg)"
  done
done
