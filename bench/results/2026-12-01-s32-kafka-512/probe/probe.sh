#!/bin/bash
cd /work/main
export BENCH_JAR=/tmp/w/s32/bench.jar PROBE=kafka-metrics
for m in native-ce sdk; do
  shm=$(mktemp -d /dev/shm/sb-bench.XXXX)
  echo "== $m $(date +%T)"
  PROFILE_JAVA_OPTS="-Djava.io.tmpdir=$shm" bench/scripts/profile-window.sh /tmp/w/s32/probe-$m $m /tmp/w/s32/p512.yaml --brokers kafka --brokers-in-child --native-envelope
  rm -rf $shm
done
echo done $(date +%T)
