#!/usr/bin/env bash
# interleaved: each repetition runs native, then the SDK with windows 1024, 2048, 4096; one JVM per run
cd /work/main
for rep in 1 2 3; do
  java -Xmx2g -Dtls.server.mode=disabled -jar bench/target/switchboard-bench.jar run /tmp/w/win2/w1024.yaml --brokers rocketmq --brokers-in-child --none-envelope --modes native --repeat 1 --jvm-warmup 20 --no-progress --out /tmp/w/win2/native-r$rep > /tmp/w/win2/native-r$rep.log 2>&1
  for w in 1024 2048 4096; do
    java -Xmx2g -Dtls.server.mode=disabled -jar bench/target/switchboard-bench.jar run /tmp/w/win2/w$w.yaml --brokers rocketmq --brokers-in-child --none-envelope --modes sdk-none --repeat 1 --jvm-warmup 20 --no-progress --out /tmp/w/win2/sdk-$w-r$rep > /tmp/w/win2/sdk-$w-r$rep.log 2>&1
  done
done
echo ALLDONE > /tmp/w/win2/done
