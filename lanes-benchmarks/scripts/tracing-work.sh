#!/usr/bin/env bash
# Tracing's cost at fixed work, the measures the machine's load moves least: runs `bench --scenario command --warmup 0`
# (1,000 openings and 300,000 deposits, 301,000 commands) without tracing, with every trace sampled and with 1 % of
# the traces sampled, RUNS times each (default 2), alternating, under JFR's allocation sampling; one line per run: the
# mode, the bytes allocated per command (the weights of every jdk.ObjectAllocationSample summed, over 301,000), the
# process CPU (user + sys, s), the commands/s and the load average.
#
# Usage: tracing-work.sh JAR [RUNS]
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: $0 JAR [RUNS]" >&2
  exit 2
fi
jar=$1
runs=${2:-2}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for _ in $(seq "$runs"); do
  for mode in off on sampled; do
    case $mode in
      off) extra=() ;;
      on) extra=(--trace) ;;
      sampled) extra=(--trace --trace-sample 0.01) ;;
    esac
    out=$({ /usr/bin/time -f 'cpu %U %S' java "-XX:StartFlightRecording=filename=$dir/run.jfr,settings=profile" \
      -jar "$jar" bench --scenario command --warmup 0 "${extra[@]}"; } 2>&1 || true)
    bytes=$(jfr print --events jdk.ObjectAllocationSample "$dir/run.jfr" | awk '
      /weight = / { v = $3; u = $4; gsub(",", "", v)
        m = (u == "bytes") ? 1 : (u == "kB") ? 1024 : (u == "MB") ? 1048576 : (u == "GB") ? 1073741824 : 1
        s += v * m }
      END { printf "%.0f", s / 301000 }')
    cpu=$(echo "$out" | awk '/^cpu/ { printf "%.2f", $2 + $3 }')
    echo "$mode B/command $bytes cpu $cpu s $(echo "$out" | grep -oE 'Throughput +[0-9,]+' | grep -oE '[0-9,]+$') commands/s spans dropped $(echo "$out" | grep -oE '[0-9,]+ dropped' | grep -oE '[0-9,]+' | head -1) load $(cut -d' ' -f1 /proc/loadavg)"
  done
done
