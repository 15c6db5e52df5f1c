#!/bin/bash
# What kafka.fetch-linger (default 2 ms after polls of 16+ records) costs in latency: keyed 512 B at 2,000 msg/s
# (native and sdk-none, two repetitions in alternating order) and the same workload at 20,000 msg/s, where polls bring
# 16 or more records (native, sdk-none, and sdk-none with the linger off), one JVM a run, 30 s JVM warm-up, Kafka in a
# child JVM, the SDK with the default metrics.
#   OUT=/tmp/lat BENCH_JAR=bench/target/switchboard-bench.jar bench/results/2026-12-03-fetch-linger/run-latency.sh
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
OUT=${OUT:-/tmp/lat}
export BENCH_JAR=${BENCH_JAR:-bench/target/switchboard-bench.jar}
common="--none-envelope --jvm-warmup 30 --brokers kafka --brokers-in-child"
bench/scripts/by-mode.sh $OUT/2k 2 native,sdk-none bench/workloads/keyed/keyed-2k-512.yaml $common
bench/scripts/by-mode.sh $OUT/20k 1 native,sdk-none $here/keyed-20k-512.yaml $common
bench/scripts/by-mode.sh $OUT/20k-off 1 sdk-none $here/keyed-20k-512-nolinger.yaml $common
echo done $(date +%T)
