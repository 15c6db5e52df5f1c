#!/bin/bash
# Kafka seed 001 at 8 topics and a fixed 250,000 msg/s, each mode in a JVM of its own (session 26)
cd /work/main
BENCH_JAR=/tmp/w/kp/bench.jar bench/scripts/by-mode.sh /tmp/w/kr/out 1 native,sdk-none /tmp/w/kr/workload.yaml \
  --brokers kafka --brokers-in-child --none-envelope --jvm-warmup 20
echo done > /tmp/w/kr/done
