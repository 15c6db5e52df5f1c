#!/bin/bash
# Session 41 (issue 38's seed 001 at 16 topics, 128 B): sdk-none with the fetch linger (the default) against sdk-none
# with kafka.fetch-linger=0ms (the plain poll loop), in pairs of 60 s runs in alternating order, with session 35's
# probe, Kafka in a child JVM, tmpfs (as ../2026-12-03-s39-kafka-seed/run.sh).
#   OUT=/tmp/w/s41/seedab REPS="1 2" BENCH_JAR=... run-seed-linger.sh
#   python3 bench/scripts/probe-pairs.py OUT 16 plain linger
cd /work/main
OUT=${OUT:-/tmp/w/s41/seedab}
export BENCH_JAR=${BENCH_JAR:-/tmp/w/s41/bench2.jar}
S=bench/results/2026-11-30-kafka-tmpfs/series
for rep in ${REPS:-1 2}; do
    case $((rep % 2)) in 1) order="plain linger" ;; 0) order="linger plain" ;; esac
    for variant in $order; do
        case $variant in plain) wl=bench/results/2026-12-03-s41-linger/w16-off-nolinger.yaml ;; *) wl=$S/w16-off.yaml ;; esac
        shm=$(mktemp -d /dev/shm/sb-bench.XXXX)
        echo "== $rep $variant $(date +%T)"
        PROBE=kafka-metrics THREADS=1 PROFILE_JAVA_OPTS="-Djava.io.tmpdir=$shm" bench/scripts/profile-window.sh \
            $OUT/16-$rep-$variant sdk-none $wl --brokers kafka --brokers-in-child --none-envelope
        rm -rf $shm
    done
done
echo done $(date +%T)
