#!/bin/bash
# Session 40 (issue 38): seed 001 at 16 topics, native, once with the bench jar of main 466a361 (the window a Semaphore)
# and once with that of 78516d9 (SendWindow), Kafka in a child JVM, session 36 probe; OLD_JAR=... NEW_JAR=... OUT=... run.sh
cd /work/main
S=bench/results/2026-11-30-kafka-tmpfs/series
OUT=${OUT:-/tmp/w/s40/control}
for jar in ${JARS:-old new}; do
  case $jar in old) export BENCH_JAR=${OLD_JAR:?bench jar of main 466a361} ;; new) export BENCH_JAR=${NEW_JAR:?bench jar of main 78516d9} ;; esac
  mode=${MODE:-native}
  case $mode in native) wl=$S/w16.yaml ;; *) wl=$S/w16-off.yaml ;; esac
  shm=$(mktemp -d /dev/shm/sb-bench.XXXX)
  echo "== $jar $mode $(date +%T)"
  PROBE=kafka-metrics THREADS=1 PROFILE_JAVA_OPTS="-Djava.io.tmpdir=$shm" bench/scripts/profile-window.sh \
      $OUT/16-$jar-$mode $mode $wl --brokers kafka --brokers-in-child --none-envelope
  rm -rf $shm
done
echo done $(date +%T)
