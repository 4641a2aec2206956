#!/usr/bin/env bash
# The PostgreSQL command path for two builds of the CLI alternately, against a running PostgreSQL server that has
# pg_stat_statements loaded (shared_preload_libraries=pg_stat_statements, CREATE EXTENSION pg_stat_statements), one
# line per run: the build, its commands/s, its share of the raw batched INSERT rate measured in the same run, and from
# pg_stat_statements (reset before each run) the server's execution time per stored stream of the batched inserts,
# the total of the request-id lookups and the statements the bench sent per stored stream, and the CPU (user + sys,
# from /proc) that the CLI's JVM and PostgreSQL (the postmaster and its children) spent per counted command between
# the CLI's phase lines "N clients sending ..." and "stopped; ...". Every lanes_run_* schema (the bench's own) is
# dropped after each run. Quote medians. A short run's measured phase holds the JIT compiler's work too (on 2 cores
# its threads took over a third of the CLI's CPU after 15 s of warm-up on the Kafka path): measure long enough.
#
# Usage: postgres-ab.sh BEFORE_JAR AFTER_JAR [RUNS]   (RUNS each, default 3)
# Environment: JDBC_URL (jdbc:postgresql://127.0.0.1:15432/postgres), PSQL (psql -h 127.0.0.1 -p 15432 -U postgres),
# PG_DATA (/tmp/pg15/data: the server's postmaster.pid), MESSAGES (200000), WARMUP (15s),
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

pg_pid=$(head -1 "${PG_DATA:-/tmp/pg15/data}/postmaster.pid")

sql() { $psql -Atq -c "$1"; }
# shellcheck source=cpu-ticks.sh
source "$(dirname "$0")/cpu-ticks.sh"

for run in $(seq "$runs"); do
  for build in before after; do
    jar=$before
    [ "$build" = after ] && jar=$after
    sql "SELECT pg_stat_statements_reset()" > /dev/null
    log=$out/$build-$run.out
    java -jar "$jar" bench --scenario command --store postgres --jdbc-url "$url" --messages "${MESSAGES:-200000}" \
      --clients 256 --warmup "${WARMUP:-15s}" --aggregates 1000 --raw-baseline 5s > "$log" 2>&1 &
    cli=$!
    start=""
    end=""
    while kill -0 "$cli" 2>/dev/null; do
      if [ -z "$start" ] && grep -qs 'clients sending' "$log"; then start="$(ticks "$cli") $(pg_ticks)"; fi
      if [ -n "$start" ] && [ -z "$end" ] && grep -qs '^stopped' "$log"; then end="$(ticks "$cli") $(pg_ticks)"; fi
      sleep 0.1
    done
    wait "$cli" || true
    cpu=$(python3 - "$log" "$(getconf CLK_TCK)" "$start" "$end" <<'PY'
import re, sys
log, hz, start, end = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4].split()
counted = re.search(r'^Throughput +[0-9,]+ commands/s \(([0-9,]+) of', open(log).read(), re.M)
if not (counted and start and end):
    print('CPU -')
else:
    n = int(counted.group(1).replace(',', ''))
    per = lambda i: 1000.0 * (int(end[i]) - int(start[i])) / hz / n
    print(f'CPU ms/command CLI {per(0):.4f}, PostgreSQL {per(1):.4f}')
PY
)
    rate=$(grep -oE '^Throughput +[0-9,]+' "$log" | grep -oE '[0-9,]+$' || echo '-')
    ratio=$(grep -oE 'ratio [0-9.]+' "$log" || echo 'ratio -')
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
      "| $statements | $cpu" \
      "| load $(cut -d' ' -f1 /proc/loadavg)"
  done
done
