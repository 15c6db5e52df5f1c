#!/usr/bin/env bash
# RocketMQ's latency row with a 30 s JVM warm-up (session 33, bench jar of 1031809): the 10 s one left the JIT busy
cd /work/main
BENCH_JAR=/tmp/w/s33/bench.jar bench/scripts/by-mode.sh /tmp/w/s33/lat/rocketmq-w30 3 native,sdk-none \
  bench/workloads/keyed/keyed-2k-512.yaml --brokers rocketmq --brokers-in-child --none-envelope --jvm-warmup 30
echo done $(date +%T)
