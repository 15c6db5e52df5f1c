#!/bin/bash
# Seed 001 at 16 topics (128 B): sdk-none with the fetch linger (the default) against sdk-none with
# kafka.fetch-linger=0ms (the plain poll loop, w16-off-nolinger.yaml), in pairs of 60 s runs in alternating order, with
# the probe of ../2026-12-02-seed-001-kafka-64/pairs.sh, Kafka in a child JVM, tmpfs.
#   OUT=/tmp/seedab REPS="1 2" BENCH_JAR=bench/target/switchboard-bench.jar bench/results/2026-12-03-fetch-linger/run-seed-linger.sh
#   python3 bench/scripts/probe-pairs.py OUT 16 plain linger
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
OUT=${OUT:-/tmp/seedab}
export BENCH_JAR=${BENCH_JAR:-bench/target/switchboard-bench.jar}
for rep in ${REPS:-1 2}; do
    case $((rep % 2)) in 1) order="plain linger" ;; 0) order="linger plain" ;; esac
    for variant in $order; do
        case $variant in
            plain) wl=$here/w16-off-nolinger.yaml ;;
            *) wl=$here/../2026-12-02-seed-001-kafka/workloads/w16-off.yaml ;;
        esac
        shm=$(mktemp -d /dev/shm/sb-bench.XXXX)
        echo "== $rep $variant $(date +%T)"
        PROBE=kafka-metrics THREADS=1 PROFILE_JAVA_OPTS="-Djava.io.tmpdir=$shm" bench/scripts/profile-window.sh \
            $OUT/16-$rep-$variant sdk-none $wl --brokers kafka --brokers-in-child --none-envelope
        rm -rf $shm
    done
done
echo done $(date +%T)
