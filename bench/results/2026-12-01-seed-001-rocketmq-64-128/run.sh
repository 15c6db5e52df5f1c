#!/bin/bash
# Seed 001 on RocketMQ at 64 and 128 topics (workload.yaml: 20 s point warm-up, 60 s measured), native against
# sdk-none, each mode in a JVM of its own, two repetitions with the order reversed in the second, the bench's temporary
# directories on tmpfs.
#   OUT=/tmp/seed-rocketmq BENCH_JAR=bench/target/switchboard-bench.jar bench/results/2026-12-01-seed-001-rocketmq-64-128/run.sh
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
shm=$(mktemp -d /dev/shm/sb-bench.XXXX)
BENCH_JAR=${BENCH_JAR:-bench/target/switchboard-bench.jar} JAVA_OPTS="-Xmx2g -Dtls.server.mode=disabled -Djava.io.tmpdir=$shm" \
  bench/scripts/by-mode.sh ${OUT:-/tmp/seed-rocketmq} 2 native,sdk-none $here/workload.yaml --brokers rocketmq \
  --brokers-in-child --none-envelope --jvm-warmup 20
rm -rf $shm
