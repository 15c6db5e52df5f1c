#!/usr/bin/env bash
# Issue 35's latency rows at 2,000 msg/s (session 33, bench jar of main 1031809), in the order they ran (00:45-03:16);
# run from the repository root. Each row: bench/scripts/by-mode.sh, three repetitions, one JVM a run.
set -euo pipefail
jar=${BENCH_JAR:-/tmp/w/s33/bench.jar} out=${OUT:-/tmp/w/s33/lat}
wl=bench/workloads/keyed/keyed-2k-512.yaml
row() { # NAME WARMUP_S MODES [bench run options]
    local name=$1 warmup=$2 modes=$3
    shift 3
    BENCH_JAR=$jar bench/scripts/by-mode.sh "$out/$name" 3 "$modes" "$wl" --none-envelope --jvm-warmup "$warmup" "$@"
    echo "done $name $(date +%T)"
}
all=native,sdk-none,native-ce,sdk
row kafka 10 $all --brokers kafka --brokers-in-child --native-envelope
row rocketmq 10 $all --brokers rocketmq --brokers-in-child --native-envelope
# the 10 s rounds left RocketMQ's JIT running: the same with 30 s rounds
row rocketmq-w30 30 native,sdk-none --brokers rocketmq --brokers-in-child
row rocketmq-w30-ce 30 native-ce,sdk --brokers rocketmq --brokers-in-child --native-envelope
row rabbitmq-w30 30 $all --brokers rabbitmq --native-envelope
# native's second RocketMQ run above did not hold 2,000 msg/s: a fourth repetition of that pair, sdk-none first
for mode in sdk-none native; do
    java -Xmx2g -Dtls.server.mode=disabled -jar "$jar" run "$wl" --brokers rocketmq --brokers-in-child --none-envelope \
        --jvm-warmup 30 --modes $mode --repeat 1 --no-progress --out "$out/rocketmq-w30/r4-$mode"
    tail -n +2 "$out/rocketmq-w30/r4-$mode/results.csv" >> "$out/rocketmq-w30/results.csv"
done
row kafka-w30 30 $all --brokers kafka --brokers-in-child --native-envelope
