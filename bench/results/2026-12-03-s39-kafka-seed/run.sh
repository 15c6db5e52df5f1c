#!/bin/bash
# Session 39 (issue 38): seed 001 on Kafka at one topic count (POINT=8, 16, 32, 64 or 128), native against sdk-none in
# pairs of 60 s runs in alternating order, with session 35's probe (kafka-clients' and the broker's request figures,
# each thread's CPU over 20 s of the window), Kafka in a child JVM, the bench's temporary directories on tmpfs; session
# 31's workloads (../2026-11-30-kafka-tmpfs/series/w<N>.yaml, and w<N>-off.yaml for the SDK: latency timers off).
#   OUT=/tmp/w/s39/seed POINT=16 REPS="1 2 3 4" BENCH_JAR=bench/target/switchboard-bench.jar run.sh
# PROBE=profile ASYNC_PROFILER_LIB=/tmp/ap/linux-x64/libasyncProfiler.so instead profiles 30 s of each run's window
# (profile-window.sh), for bench/scripts/profile-threads.py OUT/16-1-native OUT/16-1-sdk-none.
# Compare with
#   python3 bench/scripts/probe-pairs.py OUT 16 native sdk-none
cd /work/main
OUT=${OUT:-/tmp/w/s39/seed}
export BENCH_JAR=${BENCH_JAR:-/tmp/w/s39/bench.jar}
S=bench/results/2026-11-30-kafka-tmpfs/series
P=${POINT:-16}
probe=${PROBE:-kafka-metrics}
threads=$([ "$probe" = kafka-metrics ] && echo 1 || echo 0)
for rep in ${REPS:-1 2}; do
    case $((rep % 2)) in 1) order="native sdk-none" ;; 0) order="sdk-none native" ;; esac
    for mode in $order; do
        case $mode in native) wl=$S/w$P.yaml ;; *) wl=$S/w$P-off.yaml ;; esac
        shm=$(mktemp -d /dev/shm/sb-bench.XXXX)
        echo "== $rep $mode $(date +%T)"
        PROBE=$probe THREADS=$threads PROFILE_JAVA_OPTS="-Djava.io.tmpdir=$shm" bench/scripts/profile-window.sh \
            $OUT/$P-$rep-$mode $mode $wl --brokers kafka --brokers-in-child --none-envelope
        rm -rf $shm
    done
done
echo done $(date +%T)
