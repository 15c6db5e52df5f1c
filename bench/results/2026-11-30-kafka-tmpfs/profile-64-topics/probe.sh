#!/bin/bash
# Profiles seed 001 at 64 topics on tmpfs, one mode a JVM: native, then sdk-off. Session 28.
cd /work/main
for m in native sdk-off; do
  case $m in native) mode=native; wl=/tmp/w/s28/w64.yaml;; sdk-off) mode=sdk-none; wl=/tmp/w/s28/w64-off.yaml;; esac
  shm=$(mktemp -d /dev/shm/sb-bench.XXXX)
  ASYNC_PROFILER_LIB=/tmp/ap/linux-x64/libasyncProfiler.so BENCH_JAR=/tmp/w/s28/bench.jar \
    PROFILE_JAVA_OPTS="-Djava.io.tmpdir=$shm" bench/scripts/profile-window.sh /tmp/w/s28/prof/$m $mode $wl \
    --brokers kafka --brokers-in-child --none-envelope
  echo "$m rc $?"
  rm -rf $shm
done
