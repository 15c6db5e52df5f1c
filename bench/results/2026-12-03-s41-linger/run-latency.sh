#!/bin/bash
# Session 41 (issue 35): what kafka.fetch-linger (default 2 ms after polls of 16+ records) costs in latency. Issue 35's
# latency point (keyed 512 B at 2,000 msg/s: native and sdk-none, two repetitions in alternating order) and the same
# workload at 20,000 msg/s, where polls bring 16 or more records (native, sdk-none, and sdk-none with the linger off),
# one JVM a run, 30 s JVM warm-up rounds, Kafka in a child JVM (session 33's method).
#   OUT=/tmp/w/s41/lat BENCH_JAR=/tmp/w/s41/bench.jar run-latency.sh
cd /work/main
OUT=${OUT:-/tmp/w/s41/lat}
export BENCH_JAR=${BENCH_JAR:-/tmp/w/s41/bench.jar}
here=bench/results/2026-12-03-s41-linger
common="--none-envelope --jvm-warmup 30 --brokers kafka --brokers-in-child"
bench/scripts/by-mode.sh $OUT/2k 2 native,sdk-none bench/workloads/keyed/keyed-2k-512.yaml $common
bench/scripts/by-mode.sh $OUT/20k 1 native,sdk-none $here/keyed-20k-512.yaml $common
bench/scripts/by-mode.sh $OUT/20k-off 1 sdk-none $here/keyed-20k-512-nolinger.yaml $common
echo done $(date +%T)
