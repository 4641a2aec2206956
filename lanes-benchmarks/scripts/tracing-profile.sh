#!/usr/bin/env bash
# Where always-on tracing's time goes on the command path: runs `bench --scenario command` with and without --trace
# under JFR (one execution sample per millisecond per thread), then counts the samples whose stack holds a tracing
# frame (io.opentelemetry, dev.lanes.opentelemetry, Traced*) and splits them by the first Lanes frame on the stack
# ("none": a thread of the SDK's own, the batch span processor's exporter) and by the top frame's class.
#
# Usage: tracing-profile.sh JAR [OUT_DIR]
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: $0 JAR [OUT_DIR]" >&2
  exit 2
fi
jar=$1
out=${2:-$(mktemp -d)}
mkdir -p "$out"
cat > "$out/sample.jfc" <<'JFC'
<?xml version="1.0" encoding="UTF-8"?>
<configuration version="2.0">
  <event name="jdk.ExecutionSample"><setting name="enabled">true</setting><setting name="period">1 ms</setting></event>
</configuration>
JFC
for mode in off on; do
  extra=()
  [ "$mode" = on ] && extra=(--trace)
  java "-XX:StartFlightRecording=filename=$out/$mode.jfr,settings=$out/sample.jfc" -jar "$jar" \
    bench --scenario command "${extra[@]}" | grep -E '^Throughput' | sed "s/^/$mode: /"
  jfr print --events jdk.ExecutionSample "$out/$mode.jfr" > "$out/$mode.txt"
done
python3 - "$out" <<'PY'
import collections, re, sys
out = sys.argv[1]
def samples(mode):
    return [re.findall(r'^\s+([\w.$]+)\(', e, re.M) for e in open(f'{out}/{mode}.txt').read().split('jdk.ExecutionSample {')[1:]]
off, on = samples('off'), samples('on')
traced = [f for f in on if any(x.startswith(('io.opentelemetry', 'dev.lanes.opentelemetry')) or 'Traced' in x for x in f)]
sdk = [f for f in traced if f and f[0].startswith('io.opentelemetry')]
print(f'samples: off {len(off)}, on {len(on)}; with a tracing frame {len(traced)}, of which the top frame is in the SDK {len(sdk)}')
first = collections.Counter(next((x for x in f if x.startswith('dev.lanes')), 'none (an SDK thread)') for f in traced)
print('by the first Lanes frame:')
for name, n in first.most_common(12):
    print(f'  {n:5d} {name}')
top = collections.Counter(f[0].rsplit('.', 1)[0] for f in traced if f)
print('by the top frame class:')
for name, n in top.most_common(12):
    print(f'  {n:5d} {name}')
PY
