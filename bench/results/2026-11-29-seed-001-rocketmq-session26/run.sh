#!/bin/bash
# RocketMQ seed 001 at 8, 16 and 32 topics, 20 s point warm-up and 60 s measured, each mode in a JVM of its own (session 26)
cd /work/main
BENCH_JAR=/tmp/w/r8/bench.jar bench/scripts/by-mode.sh /tmp/w/r8/out 2 native,sdk-none /tmp/w/r8/workload.yaml \
  --brokers rocketmq --brokers-in-child --none-envelope --jvm-warmup 20
echo done > /tmp/w/r8/done
