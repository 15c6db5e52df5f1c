#!/bin/bash
# Kafka seed 001 at 8-64 topics, 20 s point warm-up and 120 s measured, each mode in a JVM of its own (session 26)
cd /work/main
BENCH_JAR=/tmp/w/k8/bench.jar JAVA_OPTS="-Xmx2g -Dtls.server.mode=disabled -Xlog:gc:file=/tmp/w/k8/gc-%p.log" \
  bench/scripts/by-mode.sh /tmp/w/k8/out 2 native,sdk-none /tmp/w/k8/workload.yaml --brokers kafka \
  --brokers-in-child --none-envelope --jvm-warmup 20
