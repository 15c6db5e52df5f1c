#!/usr/bin/env python3
"""Per run of a series of profile-window.sh profiles: the rate, the client CPU a message, and whose code the client's
CPU samples are in: the broker's client library (kafka-clients, amqp-client or rocketmq-client, with the JDK code it
calls), Switchboard's, the bench's own, or the JVM's threads (GC, JIT). Each sample counts for the innermost frame that
has an owner.

    python3 bench/scripts/profile-owners.py SERIES_DIR [A/B ...]

SERIES_DIR holds one directory a run, named REP-MODE (1-native, 2-sdk-none, ...), each with collapsed.txt (or
collapsed.txt.gz) and out/results.csv. Each pair A/B (default native-ce/sdk and native/sdk-none) prints B over A for
the rate, the client CPU a message, and the client CPU a message in units of the client library's own: both modes
run the same client library doing the same work a message (check its batching with PROBE=kafka-metrics), so that
figure divides out how fast the machine was during each run, which moves every run's CPU a message by up to 40 % here.
"""
import collections
import csv
import gzip
import os
import sys

LIBRARIES = ('org/apache/kafka', 'com/rabbitmq', 'org/apache/rocketmq')
JVM_THREADS = ('GC Thread', 'Compiler', 'VM Thread', 'G1', 'Sweeper')


def owner(frames):
    for frame in reversed(frames[1:]):
        if frame.startswith('io/switchboard/bench'):
            return 'bench'
        if frame.startswith('io/switchboard'):
            return 'sdk'
        if frame.startswith(LIBRARIES):
            return 'library'
    return 'other'


def load(directory):
    row = next(csv.DictReader(open(directory + '/out/results.csv')))
    stacks = directory + '/collapsed.txt'
    lines = open(stacks) if os.path.exists(stacks) else gzip.open(stacks + '.gz', 'rt')
    counts = collections.Counter()
    for line in lines:
        stack, samples = line.rstrip().rsplit(' ', 1)
        frames = stack.split(';')
        counts['jvm' if any(t in frames[0] for t in JVM_THREADS) else owner(frames)] += int(samples)
    total = sum(counts.values())
    rate = min(float(row['publish_msg_s']), float(row['consume_msg_s']))
    return {'rate': rate, 'cpu': float(row['jvm_cpu_us_per_msg']), 'broker': float(row['broker_cpu_us_per_msg'] or 'nan'),
            'lost': int(row['lost']), 'share': {k: v / total for k, v in counts.items()}}


def main(args):
    root = args[0]
    pairs = [p.split('/') for p in args[1:]] or [['native-ce', 'sdk'], ['native', 'sdk-none']]
    runs = collections.defaultdict(dict)
    for name in sorted(os.listdir(root)):
        path = f'{root}/{name}'
        stacks = os.path.exists(path + '/collapsed.txt') or os.path.exists(path + '/collapsed.txt.gz')
        if '-' in name and stacks and os.path.exists(path + '/out/results.csv'):
            rep, mode = name.split('-', 1)
            runs[mode][rep] = load(path)
    for mode, reps in runs.items():
        for rep, r in sorted(reps.items()):
            share = r['share']
            print(f"{mode:10} r{rep} {r['rate'] / 1000:6.1f}k msg/s  client {r['cpu']:5.2f} us  broker {r['broker']:5.2f}"
                  f"  lost {r['lost']}  " + '  '.join(f"{k} {share.get(k, 0) * 100:4.1f}%"
                                                    for k in ('library', 'sdk', 'bench', 'jvm', 'other'))
                  + f"  client/library {1 / share['library']:.3f}")
    for a, b in pairs:
        reps = sorted(set(runs.get(a, {})) & set(runs.get(b, {})))
        if not reps:
            continue
        mean = lambda mode, key: sum(runs[mode][r][key] for r in reps) / len(reps)
        unit = lambda mode, r: 1 / runs[mode][r]['share']['library']
        per_rep = [unit(b, r) / unit(a, r) for r in reps]
        print(f"{b}/{a} over {len(reps)} repetitions: rate {mean(b, 'rate') / mean(a, 'rate'):.3f}"
              f"  client CPU {mean(b, 'cpu') / mean(a, 'cpu'):.3f}"
              f"  client CPU in the library's units {sum(unit(b, r) for r in reps) / sum(unit(a, r) for r in reps):.3f}"
              f" (per repetition {', '.join(f'{x:.3f}' for x in per_rep)})")


if __name__ == '__main__':
    main(sys.argv[1:])
