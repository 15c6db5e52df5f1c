#!/usr/bin/env bash
# RocketMQ's default-envelope pair and RabbitMQ's four modes with a 30 s JVM warm-up (session 33, bench jar of 1031809)
cd /work/main
BENCH_JAR=/tmp/w/s33/bench.jar bench/scripts/by-mode.sh /tmp/w/s33/lat/rocketmq-w30-ce 3 native-ce,sdk \
  bench/workloads/keyed/keyed-2k-512.yaml --brokers rocketmq --brokers-in-child --none-envelope --native-envelope --jvm-warmup 30
echo done rocketmq $(date +%T)
BENCH_JAR=/tmp/w/s33/bench.jar bench/scripts/by-mode.sh /tmp/w/s33/lat/rabbitmq-w30 3 native,sdk-none,native-ce,sdk \
  bench/workloads/keyed/keyed-2k-512.yaml --brokers rabbitmq --none-envelope --native-envelope --jvm-warmup 30
echo done rabbitmq $(date +%T)
