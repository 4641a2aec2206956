#!/usr/bin/env bash
# CPU per command on the Kafka + PostgreSQL command path: runs `lanes bench --scenario command --bus kafka --store
# postgres` once against a running broker and PostgreSQL server and prints the commands/s of the run and the CPU
# seconds (user + sys, from /proc) that the CLI's JVM, the broker and PostgreSQL (the postmaster, its children and the
# children it reaped) spent during it, per 1,000 commands run by the CLI (the accounts opened, the warm-up and the
# counted commands, read from the run's JSON), with the load average at the start.
#
# Usage: kafka-cpu.sh JAR [extra bench arguments, e.g. --instances 3 or --raw-baseline 5s]
# Environment: BROKER_PID (default: the broker's pid file /tmp/kbroker/broker.pid), PG_DATA (default /tmp/pg15/data),
# BOOTSTRAP (127.0.0.1:19092), JDBC_URL (jdbc:postgresql://127.0.0.1:15432/postgres), MESSAGES (20000),
# CLIENTS (256), WARMUP (5s), AGGREGATES (1000), JAVA_OPTS (options for the CLI's JVM, e.g. a profiler agent),
# OUT (a folder for the run's JSON and output; a temporary one by default).
#
# The raw-baseline phase (if asked for) is inside the measured window; read the CPU figures of runs without it.
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

# user + sys ticks of a process; with "reaped", also the ticks of its waited-for children
ticks() { awk -v r="${2:-}" '{ print $14 + $15 + (r ? $16 + $17 : 0) }' "/proc/$1/stat" 2>/dev/null || echo 0; }
pg_ticks() {
  local sum
  sum=$(ticks "$pg_pid" reaped)
  for child in $(pgrep -P "$pg_pid"); do sum=$((sum + $(ticks "$child"))); done
  echo "$sum"
}
hz=$(getconf CLK_TCK)
load=$(cut -d' ' -f1 /proc/loadavg)
b0=$(ticks "$broker_pid")
p0=$(pg_ticks)
t0=$(date +%s%N)
# shellcheck disable=SC2086
java ${JAVA_OPTS:-} -jar "$jar" bench --scenario command --bus kafka --bootstrap-servers "${BOOTSTRAP:-127.0.0.1:19092}" \
  --store postgres --jdbc-url "${JDBC_URL:-jdbc:postgresql://127.0.0.1:15432/postgres}" \
  --messages "${MESSAGES:-20000}" --clients "${CLIENTS:-256}" --warmup "${WARMUP:-5s}" \
  --aggregates "${AGGREGATES:-1000}" -q --json "$json" "$@" > "$json.out" 2>&1 &
cli=$!
c=0
while kill -0 "$cli" 2>/dev/null; do
  now=$(ticks "$cli")
  [ "$now" -gt 0 ] && c=$now
  sleep 0.2
done
wait "$cli" || { echo "bench failed:" >&2; tail -20 "$json.out" >&2; exit 1; }
b1=$(ticks "$broker_pid")
p1=$(pg_ticks)
t1=$(date +%s%N)
python3 - "$json" "$hz" "$c" "$((b1 - b0))" "$((p1 - p0))" "$((t1 - t0))" "$load" "$*" <<'PY'
import json, sys
path, hz, cli, broker, pg, wall_ns, load, args = sys.argv[1:]
run = json.load(open(path))
rate = run['throughputPerSec']
# every command the CLI ran: the accounts opened, the warm-up and the counted ones (the dispatchers' handled counts)
total = sum(a['handled'] for a in run['aggregates'])
per = lambda ticks: 1000.0 * int(ticks) / int(hz) / total
print(f"{args or '(1 instance)'}: {rate:,.0f} commands/s; {total:,} commands in {int(wall_ns) / 1e9:.1f} s, "
      f"load {load}; CPU s per 1,000 commands: CLI {per(cli):.3f}, broker {per(broker):.3f}, "
      f"PostgreSQL {per(pg):.3f}")
for note in run.get('notes', []):
    if 'raw' in note.lower() or 'baseline' in note.lower():
        print('  ' + note)
PY
