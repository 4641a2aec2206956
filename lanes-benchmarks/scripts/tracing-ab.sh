#!/usr/bin/env bash
# The command path without tracing, with tracing (every trace sampled) and with 1 % of the traces sampled, run
# alternately RUNS times each (default 5), one line per run: the mode, its commands/s, the invariants, the process CPU
# (user, sys) and the load average. Quote medians.
#
# Usage: tracing-ab.sh JAR [RUNS] [bench arguments...]
#   e.g. tracing-ab.sh lanes.jar 3 --warmup 15s --messages 3000000
#        tracing-ab.sh lanes.jar 3 --store postgres --jdbc-url jdbc:postgresql://127.0.0.1:15432/postgres \
#            --drop-schema --warmup 15s --messages 150000
# The arguments after RUNS go to every `lanes bench --scenario command` run. Give the JIT a warm-up of 15 s or more
# when the measured phase is a few seconds: with the defaults (5 s, 300,000 commands) the compiler threads still take
# a large share of the two cores while the commands are counted.
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: $0 JAR [RUNS] [bench arguments...]" >&2
  exit 2
fi
jar=$1
runs=${2:-5}
shift $(($# < 2 ? $# : 2))
for _ in $(seq "$runs"); do
  for mode in off on sampled; do
    case $mode in
      off) extra=() ;;
      on) extra=(--trace) ;;
      sampled) extra=(--trace --trace-sample 0.01) ;;
    esac
    out=$({ /usr/bin/time -f 'cpu %U %S' java -jar "$jar" bench --scenario command "$@" "${extra[@]}"; } 2>&1 || true)
    echo "$mode $(echo "$out" | grep -oE 'Throughput +[0-9,]+' | grep -oE '[0-9,]+$') $(echo "$out" | grep -oE 'PASS \([0-9] of [0-9]|FAIL .*' | head -1) $(echo "$out" | grep '^cpu') load $(cut -d' ' -f1 /proc/loadavg)"
  done
done
