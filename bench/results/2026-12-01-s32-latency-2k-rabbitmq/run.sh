#!/usr/bin/env bash
# issue 35's latency row on RabbitMQ one JVM per mode (session 32, bench jar of ff7f0bb); run from the repository root
cd /work/main
BENCH_JAR=/tmp/w/s32/bench-new.jar bench/scripts/by-mode.sh /tmp/w/s32/lat/rabbitmq 3 native,sdk-none,native-ce,sdk \
  bench/workloads/keyed/keyed-2k-512.yaml --brokers rabbitmq --none-envelope --native-envelope --jvm-warmup 10
echo done $(date +%T)
