#!/bin/bash
# Kafka, native against sdk-none (issues 38 and 35, session 35), at seed 001's 64 topics (POINT=64, the default) or at
# issue 35's keyed 1 KiB at full speed (POINT=k1k, k1k-probe.yaml): kafka-clients' and the broker's
# request figures (PROBE=kafka-metrics) and each thread's CPU in the client's and the broker's JVMs (THREADS=1) over
# 20 s of the measured window, pairs in alternating order; session 31's workloads (w64.yaml, w64-off.yaml: the SDK with
# its latency timers off), Kafka in a child JVM, the bench's temporary directories on tmpfs. Compare with
#   python3 bench/scripts/probe-compare.py OUT/64-1-native OUT/64-1-sdk-none ...
cd /work/main
OUT=${OUT:-/tmp/w/s35/probe}
export BENCH_JAR=${BENCH_JAR:-/tmp/w/s35/bench.jar}
S=bench/results/2026-11-30-kafka-tmpfs/series
for rep in ${REPS:-1 2}; do
    case $((rep % 2)) in 1) order="native sdk-none" ;; 0) order="sdk-none native" ;; esac
    for mode in $order; do
        case ${POINT:-64}-$mode in
            64-native) wl=$S/w64.yaml ;; 64-sdk-none) wl=$S/w64-off.yaml ;;
            *) wl=bench/results/2026-12-02-s35-kafka-probe/k1k-probe.yaml ;;
        esac
        shm=$(mktemp -d /dev/shm/sb-bench.XXXX)
        echo "== $rep $mode $(date +%T)"
        PROBE=kafka-metrics THREADS=1 PROFILE_JAVA_OPTS="-Djava.io.tmpdir=$shm" bench/scripts/profile-window.sh \
            $OUT/${POINT:-64}-$rep-$mode $mode $wl --brokers kafka --brokers-in-child --none-envelope
        rm -rf $shm
    done
done
echo done $(date +%T)
