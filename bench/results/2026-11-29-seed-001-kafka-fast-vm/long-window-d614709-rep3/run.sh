#!/bin/bash
# Kafka seed 001 at 8 topics, 120 s window, third repetition (native first), bench jar of main d614709; session 26
cd /work/main
BENCH_JAR=/tmp/w/r8/bench.jar bench/scripts/by-mode.sh /tmp/w/k3/out 1 native,sdk-none /tmp/w/k3/workload.yaml --brokers kafka \
  --brokers-in-child --none-envelope --jvm-warmup 20
echo done > /tmp/w/k3/done
