#!/bin/bash
# Seed 001 on RocketMQ at 8, 16 and 32 topics (workload.yaml: 20 s point warm-up, 60 s measured), native against
# sdk-none, each mode in a JVM of its own, two repetitions with the order reversed in the second.
#   OUT=/tmp/seed-rocketmq BENCH_JAR=bench/target/switchboard-bench.jar bench/results/2026-11-29-seed-001-rocketmq-8-32/run.sh
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
BENCH_JAR=${BENCH_JAR:-bench/target/switchboard-bench.jar} bench/scripts/by-mode.sh ${OUT:-/tmp/seed-rocketmq} 2 \
  native,sdk-none $here/workload.yaml --brokers rocketmq --brokers-in-child --none-envelope --jvm-warmup 20
