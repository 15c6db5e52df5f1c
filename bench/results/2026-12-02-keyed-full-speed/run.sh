#!/bin/bash
# Keyed at-least-once at full speed, every pair on one bench jar: one JVM per mode, three repetitions, the modes' order
# reversed every other repetition (bench/scripts/by-mode.sh), the bench's temporary directories on tmpfs, the SDK with
# its latency timers off (the workloads beside this script; native and Spring ignore the setting), Kafka and RocketMQ
# in child JVMs, RabbitMQ the local server.
#   Kafka: 1 KiB and 512 B (sizes-off.yaml); native, sdk-none, native-ce, sdk, Spring Kafka
#   RabbitMQ: 1 KiB, direct exchanges (k1k-off.yaml); native, sdk-none, native-ce, sdk, Spring AMQP
#   RocketMQ: 1 KiB; native-batch, sdk-none, native-batch-ce, sdk
# MORE=1, 2, 3: three more repetitions of the none pair of RabbitMQ (rabbit-more/), RocketMQ (rocket-more/), Kafka
# (kafka-more/).
#   W=/tmp/keyed BENCH_JAR=bench/target/switchboard-bench.jar [MORE=1] bench/results/2026-12-02-keyed-full-speed/run.sh
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
W=${W:-/tmp/keyed}
export BENCH_JAR=${BENCH_JAR:-bench/target/switchboard-bench.jar}
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
mkdir -p $W
case ${MORE:-0} in
    0)  row kafka native,sdk-none,native-ce,sdk,spring $here/sizes-off.yaml --brokers kafka --brokers-in-child \
            --native-envelope --none-envelope --spring-peers
        row rabbit native,sdk-none,native-ce,sdk,spring $here/k1k-off.yaml --brokers rabbitmq \
            --native-envelope --none-envelope --spring-peers
        row rocket native-batch,sdk-none,native-batch-ce,sdk $here/k1k-off.yaml --brokers rocketmq --brokers-in-child \
            --native-envelope --none-envelope --native-batch ;;
    1)  row rabbit-more native,sdk-none $here/k1k-off.yaml --brokers rabbitmq --none-envelope ;;
    2)  row rocket-more native-batch,sdk-none $here/k1k-off.yaml --brokers rocketmq --brokers-in-child --none-envelope \
            --native-batch ;;
    3)  row kafka-more native,sdk-none $here/sizes-off.yaml --brokers kafka --brokers-in-child --none-envelope ;;
esac
echo done $(date +%T)
