#!/bin/bash
# Session 39 (issue 38): seed 001 on Kafka at one topic count under async-profiler (30 s of the measured window, each
# thread's stacks), native and sdk-none one JVM each, Kafka in a child JVM, temporary directories on tmpfs.
#   OUT=/tmp/w/s39/prof POINT=16 ASYNC_PROFILER_LIB=/tmp/ap/linux-x64/libasyncProfiler.so run-profile.sh
# Compare with
#   python3 bench/scripts/profile-threads.py OUT/16-native OUT/16-sdk-none
#   python3 bench/scripts/profile-threads.py OUT/16-native OUT/16-sdk-none bench-kafka-consumer,switchboard-kafka 40
cd /work/main
OUT=${OUT:-/tmp/w/s39/prof}
export BENCH_JAR=${BENCH_JAR:-/tmp/w/s39/bench.jar}
export ASYNC_PROFILER_LIB=${ASYNC_PROFILER_LIB:-/tmp/ap/linux-x64/libasyncProfiler.so}
S=bench/results/2026-11-30-kafka-tmpfs/series
P=${POINT:-16}
for mode in ${MODES:-native sdk-none}; do
    case $mode in native) wl=$S/w$P.yaml ;; *) wl=$S/w$P-off.yaml ;; esac
    shm=$(mktemp -d /dev/shm/sb-bench.XXXX)
    echo "== $mode $(date +%T)"
    PROFILE_JAVA_OPTS="-Djava.io.tmpdir=$shm" bench/scripts/profile-window.sh \
        $OUT/$P-$mode $mode $wl --brokers kafka --brokers-in-child --none-envelope
    rm -rf $shm
done
echo done $(date +%T)
