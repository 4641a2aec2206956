#!/usr/bin/env bash
# The scaling table of docs/benchmarks.md: the same JVM pinned to 2, 4, 8 and 16 cores (taskset and
# -XX:ActiveProcessorCount), ROUNDS runs of each scenario per core count, on one machine in one go. Per run one line:
# the cores, the scenario, its rate and the process CPU (user + sys, s) of a run with a fixed amount of work; then, per
# core count and scenario, the median rate, its ratio to the fewest cores, and the CPU per message in microseconds.
#
#   command     lanes bench --scenario command (in-memory store, 64 clients, PROCESSED): commands/s
#   demo        lanes demo --warmup 5s --duration 10s (the bank, 32 clients): commands/s
#   engine      lanes bench --scenario throughput (the lane engine, one type, zero-cost handlers): messages/s
#   many-types  lanes bench --scenario many-types (20 types sharing one pool): messages/s
#   jmh-*       benchmarks.jar ManyTypesBenchmark (20 types): JUC_BASELINE (an executor per key) beside the lane
#               engine on a shared pool, KEYED_SHARED_POOL and HASHED_SHARED_POOL: messages/s
#
# usage: scaling.sh LANES_JAR BENCHMARKS_JAR [CORES...]   (default cores: 2 4 8 16)
# env:   JAVA (default java), ROUNDS (default 3), OUT (a folder for the raw outputs; default a temporary one)
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 LANES_JAR BENCHMARKS_JAR [CORES...]" >&2
  exit 2
fi
lanes=$1
benchmarks=$2
shift 2
cores=("$@")
[ ${#cores[@]} -eq 0 ] && cores=(2 4 8 16)
java=${JAVA:-java}
rounds=${ROUNDS:-3}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
results="$out/scaling.txt"
: > "$results"

echo "$(lscpu | grep -m1 'Model name' | sed 's/  */ /g'); $(nproc) CPUs; $("$java" -version 2>&1 | head -1)"
echo "raw outputs in $out"

# Runs one scenario pinned to $n cores (in a subshell of its own, whose waited-for children's CPU is the run's);
# prints "rate counted cpu_seconds" (JMH's forks inherit the affinity, which sets their processor count).
pinned() {
  local n=$1 log=$2
  shift 2
  local me=$BASHPID start end
  start=$(awk '{print $16 + $17}' /proc/$me/stat)
  taskset -c 0-$((n - 1)) "$java" -XX:ActiveProcessorCount="$n" "$@" > "$log" 2>&1 || true
  end=$(awk '{print $16 + $17}' /proc/$me/stat)
  echo "$(rate "$log") $(awk -v t=$((end - start)) -v hz="$(getconf CLK_TCK)" 'BEGIN{printf "%.2f", t / hz}')"
}

# "rate counted": the report's Throughput line (per second, and the messages it counted: warm-up not included).
rate() {
  if grep -q '^Throughput' "$1"; then
    local line
    line=$(grep -m1 -E '^Throughput +[0-9,]+' "$1" || true)
    echo "$(echo "$line" | grep -oE '^Throughput +[0-9,]+' | grep -oE '[0-9,]+$' | tr -d ,)" \
      "$(echo "$line" | grep -oE '\([0-9,]+ of' | grep -oE '[0-9,]+' | tr -d ,)"
  else
    echo "0 0" # the run failed: its log says why
  fi
}

for round in $(seq "$rounds"); do
  for n in "${cores[@]}"; do
    for scenario in command demo engine many-types; do
      log="$out/$scenario-$n-$round.log"
      case $scenario in
        command) args=(-jar "$lanes" bench --scenario command) ;;
        demo) args=(-jar "$lanes" demo --warmup 5s --duration 10s) ;;
        engine) args=(-jar "$lanes" bench --scenario throughput) ;;
        many-types) args=(-jar "$lanes" bench --scenario many-types) ;;
      esac
      read -r value counted cpu <<< "$(pinned "$n" "$log" "${args[@]}")"
      echo "cores=$n scenario=$scenario round=$round rate=${value:-0} counted=${counted:-0} cpu_s=$cpu" \
        | tee -a "$results"
    done
    log="$out/jmh-many-types-$n-$round.log"
    pinned "$n" "$log" -jar "$benchmarks" ManyTypesBenchmark \
      -p variant=JUC_BASELINE,KEYED_SHARED_POOL,HASHED_SHARED_POOL -f 1 -wi 3 -i 5 > /dev/null
    for variant in JUC_BASELINE KEYED_SHARED_POOL HASHED_SHARED_POOL; do # ns per message -> messages/s
      ns=$(awk -v v="$variant" '$1 ~ /ManyTypesBenchmark/ && $2 == v && $3 == "ss" {print $5}' "$log")
      echo "cores=$n scenario=jmh-$variant round=$round rate=$(awk -v ns="${ns:-0}" \
        'BEGIN{printf "%.0f", (ns > 0 ? 1e9 / ns : 0)}') counted=0 cpu_s=0" | tee -a "$results"
    done
  done
done

echo
echo "medians of $rounds; rate per second. cpu: the process's CPU per run, JVM start and JIT included; us/msg: that"
echo "CPU over the messages counted (the command scenario's time-based warm-up is not counted, so its figure is high:"
echo "compare it across cores only); JMH rows have neither"
awk '
  { split($1, c, "="); split($2, s, "="); split($4, r, "="); split($5, k, "="); split($6, u, "=");
    key = s[2] " " c[2]; n[key]++; v[key, n[key]] = r[2]; cpu[key, n[key]] = u[2];
    per[key, n[key]] = k[2] > 0 ? u[2] * 1e6 / k[2] : 0; seen[s[2]] = 1 }
  function median(arr, key, k,   i, j, t, a) {
    for (i = 1; i <= k; i++) a[i] = arr[key, i] + 0
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
  }
  END {
    printf "%-24s %6s %14s %8s %10s %8s\n", "scenario", "cores", "median", "vs first", "cpu s/run", "us/msg"
    norder = split("command demo engine many-types jmh-JUC_BASELINE jmh-KEYED_SHARED_POOL jmh-HASHED_SHARED_POOL", order, " ")
    for (o = 1; o <= norder; o++) {
      sc = order[o]
      if (!(sc in seen)) continue
      first = 0
      for (cn = 1; cn <= 1024; cn++) if ((sc " " cn) in n) {
        key = sc " " cn; m = median(v, key, n[key]); cp = median(cpu, key, n[key]); um = median(per, key, n[key])
        if (first == 0) first = m
        ratio = first == 0 ? 0 : m / first
        printf "%-24s %6d %14.0f %7.2fx %10.2f %8.2f\n", sc, cn, m, ratio, cp, um
      }
    }
  }' "$results"
