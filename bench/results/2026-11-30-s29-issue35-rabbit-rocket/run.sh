#!/bin/bash
# Issue 35's RabbitMQ and RocketMQ rows at 1 KiB with the SDK's latency timers off, one JVM per mode, three repetitions
# (bench/scripts/by-mode.sh), the bench's temporary directories on tmpfs. Session 29, bench jar of f07c653.
cd /work/main
export BENCH_JAR=/tmp/w/s29/bench.jar
w=/tmp/w/s29/i35
shm=$(mktemp -d /dev/shm/sb-bench.XXXX)
export JAVA_OPTS="-Xmx2g -Dtls.server.mode=disabled -Djava.io.tmpdir=$shm"
bench/scripts/by-mode.sh $w/rabbit 3 native,sdk-none,native-ce,sdk $w/k1k-off.yaml --brokers rabbitmq \
  --native-envelope --none-envelope --time-scale 0.6 --jvm-warmup 20
python3 bench/scripts/by-mode-summary.py $w/rabbit/results.csv > $w/rabbit/summary.txt
bench/scripts/by-mode.sh $w/rocket 3 native-batch,sdk-none,native-batch-ce,sdk $w/k1k-off.yaml --brokers rocketmq \
  --brokers-in-child --native-envelope --none-envelope --native-batch --time-scale 0.6 --jvm-warmup 20
python3 bench/scripts/by-mode-summary.py $w/rocket/results.csv > $w/rocket/summary.txt
rm -rf $shm
echo done
