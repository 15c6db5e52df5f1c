#!/bin/bash
# RocketMQ seed 001 at 64 and 128 topics, 20 s point warm-up and 60 s measured, each mode in a JVM of its own, two
# repetitions (the order reversed in the second), tmpfs (session 32)
cd /work/main
shm=$(mktemp -d /dev/shm/sb-bench.XXXX)
BENCH_JAR=/tmp/w/s32/bench-new.jar JAVA_OPTS="-Xmx2g -Dtls.server.mode=disabled -Djava.io.tmpdir=$shm" bench/scripts/by-mode.sh \
  /tmp/w/s32/r64/out 2 native,sdk-none /tmp/w/s32/r64/workload.yaml --brokers rocketmq --brokers-in-child --none-envelope --jvm-warmup 20
rm -rf $shm
echo done $(date +%T)
