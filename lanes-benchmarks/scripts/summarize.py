#!/usr/bin/env python3
"""Medians of a campaign.sh output directory: per variant, the median of the rounds' JMH scores (ns/msg), the
rounds themselves, allocation per message, and the harness's CPU ns/msg lines (median over measured iterations)."""
import glob, json, os, re, statistics, sys

out = sys.argv[1]


def scores(pattern):
    rows = {}
    for path in sorted(glob.glob(os.path.join(out, pattern))):
        try:
            results = json.load(open(path))
        except ValueError:
            continue  # a round still running or cut short
        for result in results:
            key = tuple(sorted(result.get('params', {}).items()))
            rows.setdefault(key, []).append(result['primaryMetric']['score'])
            for name, metric in result.get('secondaryMetrics', {}).items():
                if name.endswith('alloc.rate.norm'):
                    rows.setdefault(key + (('B/msg', name),), []).append(metric['score'])
    return rows


def cpu(pattern):
    rows = {}
    for path in sorted(glob.glob(os.path.join(out, pattern))):
        for line in open(path):
            match = re.match(r'cpu: variant=(\S+) ns/msg=([\d.]+)', line)
            if match:
                rows.setdefault(match.group(1), []).append(float(match.group(2)))
    return rows


for name in ['throughput-r*', 'throughput-gc', 'cpu-r*', 'many-r*']:
    print('==', name)
    for key, values in scores(name + '.json').items():
        print(' ', dict(key), 'median', round(statistics.median(values), 1), 'rounds', [round(v, 1) for v in values])
    for variant, values in cpu(name + '.txt').items():
        print('  cpu ns/msg', variant, round(statistics.median(values)), 'of', len(values), 'iterations')
