#!/usr/bin/env bash
cd /work/main
for w in 1024 2048 4000; do
  java -Xmx2g -Dtls.server.mode=disabled -jar bench/target/switchboard-bench.jar run /tmp/w/win/w$w.yaml --brokers rocketmq --brokers-in-child --none-envelope --modes sdk-none --repeat 1 --jvm-warmup 20 --no-progress --out /tmp/w/win/sdk-$w > /tmp/w/win/sdk-$w.log 2>&1
done
java -Xmx2g -Dtls.server.mode=disabled -jar bench/target/switchboard-bench.jar run /tmp/w/win/w1024.yaml --brokers rocketmq --brokers-in-child --none-envelope --modes native --repeat 1 --jvm-warmup 20 --no-progress --out /tmp/w/win/native > /tmp/w/win/native.log 2>&1
echo ALLDONE > /tmp/w/win/done
