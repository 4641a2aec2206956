#!/usr/bin/env bash
# The side-by-side campaign behind docs/benchmarks.md: every scenario, every variant, several rounds, with the
# machine's load logged at each step. Run it on an otherwise idle machine; summarize with summarize.py.
#
# usage: lanes-benchmarks/scripts/campaign.sh lanes-benchmarks/target/benchmarks.jar OUTDIR
set -u
JAR=$1
OUT=$2
mkdir -p "$OUT"
log() { echo "$(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg) $*" >> "$OUT/load.txt"; }
jmh() { nice -n -10 java -jar "$JAR" "$@"; }
VARIANTS=REACTOR_CHAIN,JUC_BASELINE,HASHED,KEYED

for r in 1 2 3; do
  log "throughput r$r"
  jmh LaneThroughputBenchmark -f 1 -wi 3 -i 8 -p variant=$VARIANTS -rf json -rff "$OUT/throughput-r$r.json" > "$OUT/throughput-r$r.txt" 2>&1
done
log "gc"
jmh LaneThroughputBenchmark -f 1 -wi 2 -i 3 -p variant=$VARIANTS -prof gc -rf json -rff "$OUT/throughput-gc.json" > "$OUT/throughput-gc.txt" 2>&1
for r in 1 2 3; do
  log "cpu r$r"
  jmh CpuHandlerBenchmark -f 1 -wi 2 -i 4 -rf json -rff "$OUT/cpu-r$r.json" > "$OUT/cpu-r$r.txt" 2>&1
done
for r in 1 2 3 4 5; do
  log "many r$r"
  jmh ManyTypesBenchmark -f 1 -wi 3 -i 10 -rf json -rff "$OUT/many-r$r.json" > "$OUT/many-r$r.txt" 2>&1
done
HOT="--runs=3 --seconds=5 --warmup=2 --otherRate=9900 --hotRate=100 --slowEvery=1 --slowMillis=2"
log "hot delay"
nice -n -10 java -Xms2g -Xmx2g -cp "$JAR" dev.lanes.benchmarks.HotKeyLatency $HOT --wait=delay > "$OUT/hot-delay.txt" 2>&1
log "hot spin"
nice -n -10 java -Xms2g -Xmx2g -cp "$JAR" dev.lanes.benchmarks.HotKeyLatency $HOT --wait=spin > "$OUT/hot-spin.txt" 2>&1
log "end"
