#!/usr/bin/env bash
# after run-w30-2.sh: a fourth RocketMQ repetition of native / sdk-none with a 30 s JVM warm-up (native's second run
# did not hold 2,000 msg/s), then Kafka's four modes with a 30 s warm-up (session 33, bench jar of 1031809)
while ! grep -q "^done rabbitmq" /tmp/w/s33/lat/run-w30-2.log; do sleep 5; done
cd /work/main
for mode in sdk-none native; do
  java -Xmx2g -Dtls.server.mode=disabled -jar /tmp/w/s33/bench.jar run bench/workloads/keyed/keyed-2k-512.yaml \
    --brokers rocketmq --brokers-in-child --none-envelope --jvm-warmup 30 --modes $mode --repeat 1 --no-progress \
    --out /tmp/w/s33/lat/rocketmq-w30/r4-$mode
  tail -n +2 /tmp/w/s33/lat/rocketmq-w30/r4-$mode/results.csv >> /tmp/w/s33/lat/rocketmq-w30/results.csv
done
echo done rocketmq-r4 $(date +%T)
BENCH_JAR=/tmp/w/s33/bench.jar bench/scripts/by-mode.sh /tmp/w/s33/lat/kafka-w30 3 native,sdk-none,native-ce,sdk \
  bench/workloads/keyed/keyed-2k-512.yaml --brokers kafka --brokers-in-child --none-envelope --native-envelope --jvm-warmup 30
echo done kafka $(date +%T)
