#!/bin/bash
# Issue 35's throughput and client-CPU rows on one commit (session 35, bench jar of main 96aebbb; the SDK's code as on
# ff7f0bb, the same as session 32-34's latency and Kafka 512 B rows): one JVM per mode, three repetitions, the modes'
# order reversed every other repetition (bench/scripts/by-mode.sh), the bench's temporary directories on tmpfs, the
# SDK with its latency timers off (the workloads below; native and Spring ignore it), Kafka and RocketMQ in child JVMs.
#   Kafka: keyed-max-rate at 1 KiB and 512 B (sizes-off.yaml); native, sdk-none, native-ce, sdk, Spring Kafka
#   RabbitMQ: keyed-max-rate-1k, direct exchanges (k1k-off.yaml); native, sdk-none, native-ce, sdk, Spring AMQP
#   RocketMQ: keyed-max-rate-1k; native-batch, sdk-none, native-batch-ce, sdk
cd /work/main
R=bench/results/2026-12-02-s35-issue35-table
W=${W:-/tmp/w/s35}
export BENCH_JAR=${BENCH_JAR:-$W/bench.jar}
row() { # OUT MODES WORKLOAD OPTIONS...
    local out=$1 modes=$2 wl=$3
    shift 3
    shm=$(mktemp -d /dev/shm/sb-bench.XXXX)
    echo "== $out $(date +%T)"
    JAVA_OPTS="-Xmx2g -Dtls.server.mode=disabled -Djava.io.tmpdir=$shm" bench/scripts/by-mode.sh $W/$out 3 $modes $wl \
        "$@" --time-scale 0.6 --jvm-warmup 20 > $W/$out.log 2>&1
    echo "rc $? $(date +%T)"
    rm -rf $shm
    python3 bench/scripts/by-mode-summary.py $W/$out/results.csv > $W/$out/summary.txt
}
[ "${MORE:-0}" = 0 ] && row kafka native,sdk-none,native-ce,sdk,spring $R/sizes-off.yaml --brokers kafka --brokers-in-child \
    --native-envelope --none-envelope --spring-peers
[ "${MORE:-0}" = 0 ] && row rabbit native,sdk-none,native-ce,sdk,spring $R/k1k-off.yaml --brokers rabbitmq \
    --native-envelope --none-envelope --spring-peers
[ "${MORE:-0}" = 0 ] && row rocket native-batch,sdk-none,native-batch-ce,sdk $R/k1k-off.yaml --brokers rocketmq --brokers-in-child \
    --native-envelope --none-envelope --native-batch

# Afterwards, with MORE=1 (runs of one mode spread wider than the gaps): three more repetitions of the none pairs of
# RabbitMQ (rabbit-more/), with MORE=2 of RocketMQ (rocket-more/), with MORE=3 of Kafka (kafka-more/).
if [ "${MORE:-0}" = 1 ]; then
    row rabbit-more native,sdk-none $R/k1k-off.yaml --brokers rabbitmq --none-envelope
fi
if [ "${MORE:-0}" = 2 ]; then
    row rocket-more native-batch,sdk-none $R/k1k-off.yaml --brokers rocketmq --brokers-in-child --none-envelope --native-batch
fi
if [ "${MORE:-0}" = 3 ]; then
    row kafka-more native,sdk-none $R/sizes-off.yaml --brokers kafka --brokers-in-child --none-envelope
fi
echo done $(date +%T)
