#!/usr/bin/env bash
# issue 35's latency rows on Kafka and RocketMQ one JVM per mode (session 33, bench jar of 1031809); run from the repository root
cd /work/main
for b in kafka rocketmq; do
  BENCH_JAR=/tmp/w/s33/bench.jar bench/scripts/by-mode.sh /tmp/w/s33/lat/$b 3 native,sdk-none,native-ce,sdk \
    bench/workloads/keyed/keyed-2k-512.yaml --brokers $b --brokers-in-child --none-envelope --native-envelope --jvm-warmup 10
  echo done $b $(date +%T)
done
