#!/bin/bash
# Session 38 (issue 35): issue 35's keyed 1 KiB point at full speed, the SDK with envelope none against the Spring Kafka
# peer (mode spring, --spring-peers: KafkaTemplate and a listener container with the native driver's client settings),
# in pairs of 60 s runs in alternating order, Kafka in a child JVM, the bench's temporary directories on tmpfs, with
# kafka-clients' and the broker's request figures and each thread's CPU over 20 s of the window (as session 35's probe:
# ../2026-12-02-s35-kafka-probe/run.sh). Compare with
#   python3 bench/scripts/probe-pairs.py OUT k1k spring sdk-none
cd /work/main
OUT=${OUT:-/tmp/w/s38/spring}
export BENCH_JAR=${BENCH_JAR:-/tmp/w/s38/bench.jar}
wl=${WL:-bench/results/2026-12-02-s35-kafka-probe/k1k-probe.yaml} # WL: another workload of the same point
for rep in ${REPS:-1 2}; do
    case $((rep % 2)) in 1) order="spring sdk-none" ;; 0) order="sdk-none spring" ;; esac
    for mode in $order; do
        shm=$(mktemp -d /dev/shm/sb-bench.XXXX)
        echo "== $rep $mode $(date +%T)"
        PROBE=kafka-metrics THREADS=1 PROFILE_JAVA_OPTS="-Djava.io.tmpdir=$shm" bench/scripts/profile-window.sh \
            $OUT/k1k-$rep-$mode $mode $wl --brokers kafka --brokers-in-child --none-envelope --spring-peers
        rm -rf $shm
    done
done
echo done $(date +%T)
