#!/bin/bash
# Issue 88's rows, pooled over three alternating repetitions (bench/scripts/by-mode.sh: one JVM per mode, the modes'
# order reversed every other repetition), the SDK with its default meters, Kafka and RocketMQ in child JVMs, RabbitMQ
# the local server, the bench's temporary directories on tmpfs. Keyed at least once, 4 partitions, 2 producers,
# 2 consumers; 10 s warm-up, 20 s measured (k1k.yaml, k512.yaml beside this script).
#   ROWS="like-rocketmq none-rabbitmq" W=/tmp/cost BENCH_JAR=bench/target/switchboard-bench.jar \
#       bench/results/2026-12-08-sdk-cost-series/run.sh
#   like-*: 1 KiB, the default envelope against the plain client writing the same headers (RocketMQ: native-batch-ce)
#   none-*: 512 B, envelope none against the header-less plain client (Kafka's is bench/results/2026-12-07-kafka-512-none-series)
#   lat-*:  keyed-2k-512 (2,000 msg/s), envelope none against the plain client, 30 s JVM warm-up
cd "$(dirname "$0")/../../.." && here=bench/results/2026-12-08-sdk-cost-series
W=${W:-/tmp/cost} BENCH_JAR=${BENCH_JAR:-bench/target/switchboard-bench.jar}
export BENCH_JAR
# one row: its three repetitions through by-mode.sh, its temporary directory on tmpfs, then its summary
row() { # NAME MODES WORKLOAD [bench run options]
    local name=$1 modes=$2 workload=$3 tmp
    shift 3
    tmp=$(mktemp -d /dev/shm/sb-bench.XXXX)
    echo "== $name $(date +%T)"
    JAVA_OPTS="-Xmx2g -Dtls.server.mode=disabled -Djava.io.tmpdir=$tmp" \
        bench/scripts/by-mode.sh "$W/$name" 3 "$modes" "$workload" "$@" > "$W/$name.log" 2>&1
    echo "rc $? $(date +%T)"
    rm -rf "$tmp"
    python3 bench/scripts/by-mode-summary.py "$W/$name/results.csv" > "$W/$name/summary.txt"
}
mkdir -p $W
lat=bench/workloads/keyed/keyed-2k-512.yaml
for r in ${ROWS:-like-kafka like-rabbitmq like-rocketmq none-rabbitmq none-rocketmq}; do
    case $r in
        like-kafka) row $r native-ce,sdk $here/k1k.yaml --brokers kafka --brokers-in-child --native-envelope ;;
        like-rabbitmq) row $r native-ce,sdk $here/k1k.yaml --brokers rabbitmq --native-envelope ;;
        like-rocketmq) row $r native-batch-ce,sdk $here/k1k.yaml --brokers rocketmq --brokers-in-child --native-envelope \
            --native-batch ;;
        none-rabbitmq) row $r native,sdk-none $here/k512.yaml --brokers rabbitmq --none-envelope ;;
        none-rocketmq) row $r native-batch,sdk-none $here/k512.yaml --brokers rocketmq --brokers-in-child --none-envelope \
            --native-batch ;;
        lat-kafka) row $r native,sdk-none $lat --brokers kafka --brokers-in-child --none-envelope --jvm-warmup 30 ;;
        lat-rabbitmq) row $r native,sdk-none $lat --brokers rabbitmq --none-envelope --jvm-warmup 30 ;;
        lat-rocketmq) row $r native,sdk-none $lat --brokers rocketmq --brokers-in-child --none-envelope --jvm-warmup 30 ;;
    esac
done
echo done $(date +%T)
