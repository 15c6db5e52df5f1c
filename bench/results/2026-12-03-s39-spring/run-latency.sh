#!/bin/bash
# Session 39 (issue 35): what fetch.min.bytes 64 KiB with fetch.max.wait.ms 5 costs at 2,000 msg/s (issue 35's
# latency row, keyed 512 B): native and sdk-none with kafka-clients' defaults and with the setting, one JVM a run,
# 30 s JVM warm-up rounds, Kafka in a child JVM (session 33's method, one repetition each).
#   OUT=/tmp/w/s39/lat BENCH_JAR=/tmp/w/s39/bench.jar run-latency.sh
cd /work/main
OUT=${OUT:-/tmp/w/s39/lat}
export BENCH_JAR=${BENCH_JAR:-/tmp/w/s39/bench.jar}
bench/scripts/by-mode.sh $OUT/default 1 native,sdk-none bench/workloads/keyed/keyed-2k-512.yaml --none-envelope \
    --jvm-warmup 30 --brokers kafka --brokers-in-child
bench/scripts/by-mode.sh $OUT/fetch 1 native,sdk-none bench/results/2026-12-03-s39-spring/keyed-2k-512-fetch.yaml \
    --none-envelope --jvm-warmup 30 --brokers kafka --brokers-in-child
echo done $(date +%T)
