#!/usr/bin/env bash
# Runs the command path's figures for two builds of the CLI alternately, one line per run: the build, its
# commands/s, the invariants, the process CPU (user, sys) and the load average. Quote medians.
#
# Usage: command-ab.sh BEFORE_JAR AFTER_JAR [RUNS]
#   bench --scenario command with its defaults (5 s warm-up, 300,000 counted), RUNS times each (default 7);
#   the whole run without warm-up (--messages 300000 --warmup 0s), 5 times each;
#   demo with its defaults (10 s), 3 times each; demo --warmup 10s, 3 times each (AFTER_JAR only with OLD_CLI=1);
#   then AFTER_JAR only: the overload demo (--clients 30000 --duration 10s), 3 times.
# A jar built before --warmup existed takes no --warmup option: pass OLD_CLI=1 to leave it out for BEFORE_JAR.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 BEFORE_JAR AFTER_JAR [RUNS]" >&2
  exit 2
fi
before=$1
after=$2
runs=${3:-7}

row() { # name, output
  echo "$1 $(echo "$2" | grep -oE 'Throughput +[0-9,]+' | grep -oE '[0-9,]+$') $(echo "$2" | grep -oE 'PASS \([0-9] of [0-9]|FAIL .*' | head -1) $(echo "$2" | grep '^cpu') load $(cut -d' ' -f1 /proc/loadavg)"
}
run() { { /usr/bin/time -f 'cpu %U %S' java -jar "$@"; } 2>&1 || true; }
whole() { # jar
  if [ "$1" = "$before" ] && [ "${OLD_CLI:-0}" = 1 ]; then
    run "$1" bench --scenario command --messages 300000
  else
    run "$1" bench --scenario command --messages 300000 --warmup 0s
  fi
}

echo "== bench --scenario command (defaults)"
for _ in $(seq "$runs"); do
  row before "$(run "$before" bench --scenario command)"
  row after "$(run "$after" bench --scenario command)"
done
echo "== bench --scenario command --messages 300000, no warm-up"
for _ in 1 2 3 4 5; do
  row before "$(whole "$before")"
  row after "$(whole "$after")"
done
echo "== demo (defaults)"
for _ in 1 2 3; do
  row before "$(run "$before" demo)"
  row after "$(run "$after" demo)"
done
echo "== demo --warmup 10s"
for _ in 1 2 3; do
  if [ "${OLD_CLI:-0}" != 1 ]; then
    row before "$(run "$before" demo --warmup 10s)"
  fi
  row after "$(run "$after" demo --warmup 10s)"
done
echo "== demo --clients 30000 --duration 10s"
for _ in 1 2 3; do
  out=$(run "$after" demo --clients 30000 --duration 10s)
  row after "$out"
  echo "$out" | grep -E 'graceful stop' | head -1
done
