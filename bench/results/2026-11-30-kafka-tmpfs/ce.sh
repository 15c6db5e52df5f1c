#!/bin/bash
# Issue 35's Kafka rows for the default envelope: native-ce and sdk (timers off), one JVM per mode, tmpfs. Session 28.
cd /work/main
export BENCH_JAR=/tmp/w/s28/bench.jar
shm=$(mktemp -d /dev/shm/sb-bench.XXXX)
JAVA_OPTS="-Xmx2g -Dtls.server.mode=disabled -Djava.io.tmpdir=$shm" bench/scripts/by-mode.sh /tmp/w/s28/i35ce 3 native-ce,sdk \
  /tmp/w/s28/sizes-off.yaml --brokers kafka --brokers-in-child --native-envelope --time-scale 0.6 --jvm-warmup 20
rm -rf $shm
python3 bench/scripts/by-mode-summary.py /tmp/w/s28/i35ce/results.csv > /tmp/w/s28/i35ce/summary.txt
echo done
