#!/usr/bin/env bash
# CPU per command on the Kafka + PostgreSQL command path: runs `lanes bench --scenario command --bus kafka --store
# postgres` once against a running broker and PostgreSQL server and prints the run's commands/s and the CPU seconds
# (user + sys, from /proc) that the CLI's JVM, the broker and PostgreSQL (the postmaster, its children and the children
# it reaped) spent per 1,000 commands, twice:
#   measured  between the CLI's phase lines "N clients sending ..." and "stopped; ...": the counted commands only,
#             after the warm-up (JIT mostly done), without start, accounts, raw baselines, stop and audit;
#   whole     the CLI's whole life over every command it ran (accounts opened, warm-up, counted), as
#             docs/benchmarks.md measured it first.
# The load average at the start is printed with it: read the figures beside the machine's other work.
#
# Usage: kafka-cpu.sh JAR [extra bench arguments, e.g. --instances 3 or --raw-baseline 5s]
# Environment: BROKER_PID (default: the pid in /tmp/kbroker/broker.pid), PG_DATA (default /tmp/pg15/data),
# BOOTSTRAP (127.0.0.1:19092), JDBC_URL (jdbc:postgresql://127.0.0.1:15432/postgres), MESSAGES (20000),
# CLIENTS (256), WARMUP (5s), AGGREGATES (1000), JAVA_OPTS (options of the CLI's JVM, e.g. a profiler agent),
# OUT (a folder for the run's JSON and output; a temporary one by default), CLEANUP (--drop-schema --delete-topics:
# the run leaves no schema, topic or consumer group behind; empty for a jar older than --delete-topics).
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: $0 JAR [bench arguments]" >&2
  exit 2
fi
jar=$1
shift
broker_pid=${BROKER_PID:-$(cat /tmp/kbroker/broker.pid)}
pg_data=${PG_DATA:-/tmp/pg15/data}
pg_pid=$(head -1 "$pg_data/postmaster.pid")
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
json=$out/run-$(date +%s%N).json

# shellcheck source=cpu-ticks.sh
source "$(dirname "$0")/cpu-ticks.sh"
snapshot() { echo "$(ticks "$cli") $(ticks "$broker_pid") $(pg_ticks) $(date +%s%N)"; }
load=$(cut -d' ' -f1 /proc/loadavg)
b0=$(ticks "$broker_pid")
p0=$(pg_ticks)
t0=$(date +%s%N)
# shellcheck disable=SC2086
java ${JAVA_OPTS:-} -jar "$jar" bench --scenario command --bus kafka --bootstrap-servers "${BOOTSTRAP:-127.0.0.1:19092}" \
  --store postgres --jdbc-url "${JDBC_URL:-jdbc:postgresql://127.0.0.1:15432/postgres}" \
  --messages "${MESSAGES:-20000}" --clients "${CLIENTS:-256}" --warmup "${WARMUP:-5s}" \
  --aggregates "${AGGREGATES:-1000}" --json "$json" ${CLEANUP---drop-schema --delete-topics} "$@" > "$json.out" 2>&1 &
cli=$!
c=0
start=""
end=""
while kill -0 "$cli" 2>/dev/null; do
  now=$(ticks "$cli")
  [ "$now" -gt 0 ] && c=$now
  if [ -z "$start" ] && grep -qs 'clients sending' "$json.out"; then start=$(snapshot); fi
  if [ -n "$start" ] && [ -z "$end" ] && grep -qs '^stopped' "$json.out"; then end=$(snapshot); fi
  sleep 0.1
done
wait "$cli" || { echo "bench failed:" >&2; tail -20 "$json.out" >&2; exit 1; }
b1=$(ticks "$broker_pid")
p1=$(pg_ticks)
t1=$(date +%s%N)
python3 - "$json" "$(getconf CLK_TCK)" "$c" "$((b1 - b0))" "$((p1 - p0))" "$((t1 - t0))" "$load" "$*" \
  "${start:-}" "${end:-}" <<'PY'
import json, sys
path, hz, cli, broker, pg, wall_ns, load, args, start, end = sys.argv[1:]
hz = int(hz)
run = json.load(open(path))
rate = run['throughputPerSec']
# every command the CLI ran: the accounts opened, the warm-up and the counted ones (the dispatchers' handled counts)
total = sum(a['handled'] for a in run['aggregates'])
line = f"{args or '(1 instance)'}: {rate:,.0f} commands/s, load {load}; CPU ms per command"
if start and end:
    s, e = [list(map(int, x.split())) for x in (start, end)]
    n = run['messages']
    per = lambda i: 1000.0 * (e[i] - s[i]) / hz / n
    line += (f" measured ({n:,} in {(e[3] - s[3]) / 1e9:.1f} s): CLI {per(0):.3f}, broker {per(1):.3f}, "
             f"PostgreSQL {per(2):.3f};")
whole = lambda ticks: 1000.0 * int(ticks) / hz / total
line += (f" whole ({total:,} in {int(wall_ns) / 1e9:.1f} s): CLI {whole(cli):.3f}, broker {whole(broker):.3f}, "
         f"PostgreSQL {whole(pg):.3f}")
print(line)
for note in run.get('notes', []):
    if 'raw' in note.lower() or 'baseline' in note.lower():
        print('  ' + note)
PY
