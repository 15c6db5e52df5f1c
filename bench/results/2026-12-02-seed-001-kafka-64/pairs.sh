#!/bin/bash
# Pairs of 60 s runs on Kafka, two modes in alternating order (A first in odd pairs, B first in even ones), each run a
# JVM of its own, Kafka in a child JVM, the bench's temporary directories on tmpfs. Over 20 s of each measured window
# bench/scripts/profile-window.sh (PROBE=kafka-metrics THREADS=1) reads kafka-clients' and the broker's request figures
# and each thread's CPU in the client's and the broker's JVMs.
#   POINT=64 OUT=/tmp/pairs REPS="1 2 3 4" BENCH_JAR=bench/target/switchboard-bench.jar \
#       bench/results/2026-12-02-seed-001-kafka-64/pairs.sh
#   python3 bench/scripts/probe-pairs.py OUT POINT A B        # each pair's ratios B / A and the pooled ones
# POINT: 8, 16, 32, 64 or 128 (seed 001 at that many topics: ../2026-12-02-seed-001-kafka/workloads/w<N>.yaml, and
#   w<N>-off.yaml, the SDK with its latency timers off, for an SDK mode), or k1k (the keyed 1 KiB point,
#   ../2026-12-03-fetch-linger/k1k-probe.yaml).
# A, B: the modes (default native and sdk-none); A=spring is the Spring Kafka peer (--spring-peers is added).
# WL_A, WL_B: other workloads for A and B. PROBE=profile with ASYNC_PROFILER_LIB profiles instead (profile-window.sh).
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
OUT=${OUT:-/tmp/pairs}
export BENCH_JAR=${BENCH_JAR:-bench/target/switchboard-bench.jar}
P=${POINT:-64} A=${A:-native} B=${B:-sdk-none}
probe=${PROBE:-kafka-metrics}
threads=$([ "$probe" = kafka-metrics ] && echo 1 || echo 0)
workload() { # MODE -> its workload
    case $P-$1 in
        k1k-*) echo "$here/../2026-12-03-fetch-linger/k1k-probe.yaml" ;;
        *-native | *-spring) echo "$here/../2026-12-02-seed-001-kafka/workloads/w$P.yaml" ;;
        *) echo "$here/../2026-12-02-seed-001-kafka/workloads/w$P-off.yaml" ;;
    esac
}
wl_a=${WL_A:-$(workload $A)} wl_b=${WL_B:-$(workload $B)}
extra=$([ "$A" = spring ] || [ "$B" = spring ] && echo --spring-peers)
for rep in ${REPS:-1 2}; do
    case $((rep % 2)) in 1) order="A B" ;; 0) order="B A" ;; esac
    for side in $order; do
        if [ $side = A ]; then mode=$A wl=$wl_a; else mode=$B wl=$wl_b; fi
        shm=$(mktemp -d /dev/shm/sb-bench.XXXX)
        echo "== $rep $mode $(date +%T)"
        PROBE=$probe THREADS=$threads PROFILE_JAVA_OPTS="-Djava.io.tmpdir=$shm" bench/scripts/profile-window.sh \
            $OUT/$P-$rep-$mode $mode $wl --brokers kafka --brokers-in-child --none-envelope $extra
        rm -rf $shm
    done
done
echo done $(date +%T)
